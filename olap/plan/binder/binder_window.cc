// Window function calls: f(...) OVER (PARTITION BY ... ORDER BY ... [frame]).
//
// A call is bound where the select list or ORDER BY names it: its
// arguments, partition and order expressions are bound in the caller's
// context (so they may read aggregates: sum(sum(x)) OVER (), rank() OVER
// (ORDER BY count(*))) and the call becomes a ref to a fresh column. After
// the aggregation, HAVING and the select list's subquery joins exist,
// PlanWindows projects computed arguments / keys into columns and stacks one
// Window operator per distinct (PARTITION BY, ORDER BY) pair, in the order
// the specifications first appear.
//
// PostgreSQL's errors: 42P20 "window functions are not allowed in WHERE"
// (GROUP BY, HAVING, ...) and "window function calls cannot be nested";
// 42803 "aggregate function calls cannot contain window function calls";
// 42809 "window function rank requires an OVER clause" and "OVER specified,
// but abs is not a window function nor an aggregate function"; 42704
// "window \"w\" does not exist".
// Named windows (WINDOW w AS (...)): OVER w takes w whole; OVER (w ORDER BY
// ...) / a definition (w ...) copies w's PARTITION BY and may add an ORDER BY
// and a frame, with PostgreSQL's 42P20 errors when it would override either
// or copy a frame. Unlike PostgreSQL, an unused definition's expressions are
// not bound (so not checked).
// Frames: ROWS and GROUPS with integer-constant offsets; RANGE with numeric
// constant offsets over one integer / DECIMAL / DOUBLE ORDER BY key (date and
// timestamp keys with interval offsets are 0A000 here); EXCLUDE CURRENT ROW /
// GROUP / TIES / NO
// OTHERS. Offsets that are not constants are 0A000. Errors are reported at
// the frame's position (PostgreSQL points at the offending bound).
#include <sstream>
#include <string>

#include "olap/execution/aggregate/group_table.h"
#include "olap/plan/binder/binder_internal.h"

namespace forktail {

namespace {

constexpr const char* kWindowingError = "42P20";

// A window specification with its named-window references resolved: the
// parts point into the AST (the call's own spec or a WINDOW definition).
struct EffectiveWindow {
  const std::vector<sql::ExprPtr>* partition_by;
  const std::vector<sql::OrderItem>* order_by;
  const std::string* frame;
  int frame_position;
};

// Resolves `spec` against the first `visible` definitions of the WINDOW
// clause (a definition sees only the ones before it), as PostgreSQL's
// transformWindowDefinitions does.
EffectiveWindow ResolveWindow(const sql::WindowSpec& spec,
                              const std::vector<sql::NamedWindow>* named, size_t visible) {
  EffectiveWindow w{&spec.partition_by, &spec.order_by, &spec.frame, spec.position};
  if (spec.name.empty()) return w;
  size_t ref = visible;
  for (size_t i = 0; i < visible && ref == visible; i++) {
    if ((*named)[i].name == spec.name) ref = i;
  }
  if (ref == visible) {
    throw DbError(sqlstate::kUndefinedObject, "window \"" + spec.name + "\" does not exist",
                  spec.position);
  }
  const EffectiveWindow base = ResolveWindow(*(*named)[ref].spec, named, ref);
  if (spec.bare_name) return base;
  if (!spec.partition_by.empty()) {
    throw DbError(kWindowingError,
                  "cannot override PARTITION BY clause of window \"" + spec.name + "\"",
                  spec.position);
  }
  if (!spec.order_by.empty() && !base.order_by->empty()) {
    throw DbError(kWindowingError,
                  "cannot override ORDER BY clause of window \"" + spec.name + "\"", spec.position);
  }
  if (!base.frame->empty()) {
    throw DbError(kWindowingError,
                  "cannot copy window \"" + spec.name + "\" because it has a frame clause",
                  spec.position)
        .WithHint("Omit the parentheses in this OVER clause.");
  }
  w.partition_by = base.partition_by;
  if (spec.order_by.empty()) w.order_by = base.order_by;
  return w;
}

struct FrameParser {
  std::vector<std::string> words;
  size_t pos = 0;
  int position = 0;

  bool Accept(const char* w) {
    if (pos < words.size() && words[pos] == w) {
      ++pos;
      return true;
    }
    return false;
  }
  std::string Next() { return pos < words.size() ? words[pos++] : ""; }

  // RANGE offsets are kept as text in `text` until the key's type is known.
  void Bound(const WindowFrame& f, bool is_start, FrameBound* kind, int64_t* offset,
             std::string* text) {
    if (Accept("UNBOUNDED")) {
      if (Accept("PRECEDING")) {
        *kind = FrameBound::kUnboundedPreceding;
      } else if (Accept("FOLLOWING")) {
        *kind = FrameBound::kUnboundedFollowing;
      } else {
        throw DbError(sqlstate::kSyntaxError, "syntax error in window frame", position);
      }
      return;
    }
    if (Accept("CURRENT")) {
      if (!Accept("ROW")) throw DbError(sqlstate::kSyntaxError, "syntax error", position);
      *kind = FrameBound::kCurrentRow;
      return;
    }
    const std::string which = is_start ? "starting" : "ending";
    std::string n = Next();
    std::string dir = Next();
    if (n == "NULL" && (dir == "PRECEDING" || dir == "FOLLOWING")) {
      throw DbError("22004", "frame " + which + " offset must not be null");
    }
    if (n == "-") {
      if (!f.rows && !f.groups) {
        throw DbError("22013", "invalid preceding or following size in window function");
      }
      throw DbError("22013", "frame " + which + " offset must not be negative");
    }
    if (dir != "PRECEDING" && dir != "FOLLOWING") {
      NotSupported("a window frame offset other than a numeric constant", position);
    }
    *kind = dir == "PRECEDING" ? FrameBound::kPreceding : FrameBound::kFollowing;
    bool digits = !n.empty() && n.find_first_not_of("0123456789") == std::string::npos;
    if (!f.rows && !f.groups) {
      if (n.empty() || n.find_first_not_of("0123456789.eE+") != std::string::npos ||
          n.find_first_of("0123456789") == std::string::npos) {
        NotSupported("a window frame offset other than a numeric constant", position);
      }
      *text = n;
      return;
    }
    if (!digits || n.size() > 18) {
      NotSupported("a window frame offset other than an integer constant", position);
    }
    *offset = std::stoll(n);
  }
};

WindowFrame ParseFrame(const std::string& text, int position) {
  WindowFrame f;
  if (text.empty()) return f;
  FrameParser p;
  p.position = position;
  std::istringstream in(text);
  for (std::string w; in >> w;) p.words.push_back(w);
  f.groups = p.Accept("GROUPS");
  f.rows = !f.groups && p.Accept("ROWS");
  if (!f.rows && !f.groups && !p.Accept("RANGE")) {
    throw DbError(sqlstate::kSyntaxError, "syntax error in window frame", position);
  }
  if (p.Accept("BETWEEN")) {
    p.Bound(f, true, &f.start, &f.start_offset, &f.start_text);
    if (!p.Accept("AND")) throw DbError(sqlstate::kSyntaxError, "syntax error", position);
    p.Bound(f, false, &f.end, &f.end_offset, &f.end_text);
  } else {
    p.Bound(f, true, &f.start, &f.start_offset, &f.start_text);
    f.end = FrameBound::kCurrentRow;
  }
  if (p.Accept("EXCLUDE")) {
    if (p.Accept("CURRENT") && p.Accept("ROW")) {
      f.exclude = FrameExclude::kCurrentRow;
    } else if (p.Accept("GROUP")) {
      f.exclude = FrameExclude::kGroup;
    } else if (p.Accept("TIES")) {
      f.exclude = FrameExclude::kTies;
    } else if (!p.Accept("NO") || !p.Accept("OTHERS")) {
      throw DbError(sqlstate::kSyntaxError, "syntax error in window frame", position);
    }
  }
  if (p.pos != p.words.size()) {
    throw DbError(sqlstate::kSyntaxError, "syntax error in window frame", position);
  }
  if (f.start == FrameBound::kUnboundedFollowing) {
    throw DbError(kWindowingError, "frame start cannot be UNBOUNDED FOLLOWING", position);
  }
  if (f.end == FrameBound::kUnboundedPreceding) {
    throw DbError(kWindowingError, "frame end cannot be UNBOUNDED PRECEDING", position);
  }
  if (f.start == FrameBound::kCurrentRow && f.end == FrameBound::kPreceding) {
    throw DbError(kWindowingError, "frame starting from current row cannot have preceding rows",
                  position);
  }
  if (f.start == FrameBound::kFollowing &&
      (f.end == FrameBound::kPreceding || f.end == FrameBound::kCurrentRow)) {
    throw DbError(kWindowingError, "frame starting from following row cannot have preceding rows",
                  position);
  }
  return f;
}

// RANGE offsets against the ORDER BY key: held in the key's scale (integer /
// DECIMAL, truncated: exact, see window_function.h) or as doubles.
void BindRangeOffsets(WindowFrame* f, const BoundWindowCall& call, int spec_position,
                      int frame_position) {
  if (f->rows || f->groups || (f->start_text.empty() && f->end_text.empty())) return;
  if (call.order.size() != 1) {
    throw DbError(kWindowingError,
                  "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
                  spec_position);
  }
  const Type& key = call.order[0]->type;
  f->descending = call.order_keys[0].descending;
  f->double_key = key.id == TypeId::kDouble;
  for (int side = 0; side < 2; ++side) {
    const std::string& text = side == 0 ? f->start_text : f->end_text;
    if (text.empty()) continue;
    const bool integral = text.find_first_not_of("0123456789") == std::string::npos;
    const std::string offset_type = !integral || text.size() > 18   ? "numeric"
                                    : std::stoll(text) > 2147483647 ? "bigint"
                                                                    : "integer";
    auto unsupported = [&](bool with_offset) {
      DbError e(sqlstate::kFeatureNotSupported,
                "RANGE with offset PRECEDING/FOLLOWING is not supported for column type " +
                    BaseTypeName(key) + (with_offset ? " and offset type " + offset_type : ""),
                frame_position);
      if (with_offset) e.WithHint("Cast the offset value to an appropriate type.");
      throw e;
    };
    int64_t* offset = side == 0 ? &f->start_offset : &f->end_offset;
    double* value = side == 0 ? &f->start_value : &f->end_value;
    if (key.id == TypeId::kDouble) {
      *value = std::stod(text);
    } else if (key.IsInteger()) {
      if (offset_type == "numeric") unsupported(true);
      *offset = std::stoll(text);
    } else if (key.id == TypeId::kDecimal) {
      if (text.find_first_of("eE+") != std::string::npos) {
        NotSupported("a RANGE offset in exponent notation", frame_position);
      }
      size_t dot = text.find('.');
      std::string whole = text.substr(0, dot);
      std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
      frac.resize(key.scale, '0');  // truncated to the key's scale
      std::string digits = whole + frac;
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
      *offset = digits.empty() ? 0 : (digits.size() > 18 ? INT64_MAX : std::stoll(digits));
    } else {
      unsupported(key.IsDateTime());
    }
  }
}

bool SameSpec(const BoundWindowCall& a, const BoundWindowCall& b) {
  if (a.partition.size() != b.partition.size() || a.order.size() != b.order.size()) return false;
  for (size_t i = 0; i < a.partition.size(); ++i) {
    if (!ExprEquals(*a.partition[i], *b.partition[i])) return false;
  }
  for (size_t i = 0; i < a.order.size(); ++i) {
    if (!ExprEquals(*a.order[i], *b.order[i]) ||
        a.order_keys[i].descending != b.order_keys[i].descending ||
        a.order_keys[i].nulls_first != b.order_keys[i].nulls_first) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool Binder::IsWindowOnlyName(const std::string& name) {
  return name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
         name == "cume_dist" || name == "ntile" || name == "lag" || name == "lead" ||
         name == "first_value" || name == "last_value" || name == "nth_value";
}

ExprPtr Binder::BindWindowCall(const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  if (!e.over) {
    throw DbError(sqlstate::kWrongObjectType,
                  "window function " + name + " requires an OVER clause", e.position);
  }
  if (ctx.aggs != nullptr && ctx.aggs->in_aggregate) {
    throw DbError(sqlstate::kGroupingError,
                  "aggregate function calls cannot contain window function calls", e.position);
  }
  if (ctx.windows == nullptr) {
    throw DbError(kWindowingError, std::string("window functions are not allowed in ") + ctx.clause,
                  e.position);
  }
  WindowState& ws = *ctx.windows;
  if (ws.binding != 0) {
    throw DbError(kWindowingError,
                  ws.binding == 1 ? "window function calls cannot be nested"
                                  : "window functions are not allowed in window definitions",
                  e.position);
  }
  const bool is_agg = IsAggregateName(name);
  if (!is_agg && !IsWindowOnlyName(name)) {
    throw DbError(
        sqlstate::kWrongObjectType,
        "OVER specified, but " + name + " is not a window function nor an aggregate function",
        e.position);
  }
  if (name == "string_agg" || name == "array_agg" || name == "jsonb_agg" ||
      name == "jsonb_object_agg" || name == "json_agg" || name == "json_object_agg") {
    NotSupported(name + " as a window function", e.position);
  }
  if (e.distinct) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "DISTINCT is not implemented for window functions", e.position);
  }
  if (!e.agg_order.empty()) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "aggregate ORDER BY is not implemented for window functions", e.position);
  }
  if (e.filter && !is_agg) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "FILTER is not implemented for non-aggregate window functions", e.position);
  }
  const EffectiveWindow spec = ResolveWindow(*e.over, ws.named, ws.named ? ws.named->size() : 0);

  BoundWindowCall call;
  call.position = e.position;
  ws.binding = 1;
  try {
    ExprContext c = ctx;
    c.hint = nullptr;
    std::vector<ExprPtr>& args = call.args;
    auto arg_types = [&] {
      std::string s;
      for (const ExprPtr& a : args) s += (s.empty() ? "" : ", ") + BaseTypeName(a->type);
      return s;
    };
    auto no_such = [&] {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function " + name + "(" + arg_types() + ") does not exist", e.position);
    };
    Type int_type = Type::Integer();
    for (size_t i = 0; i < e.children.size(); ++i) {
      c.hint = nullptr;
      // Counts and offsets (ntile(n), lag(x, n), nth_value(x, n)) are integers.
      bool int_arg = (i == 0 && name == "ntile") ||
                     (i == 1 && (name == "lag" || name == "lead" || name == "nth_value"));
      if (int_arg) c.hint = &int_type;
      if (i == 2 && !args.empty()) c.hint = &args[0]->type;
      args.push_back(BindExpr(*e.children[i], c));
      if (int_arg && !args.back()->type.IsInteger()) no_such();
    }
    WindowFunction& fn = call.fn;
    auto arity = [&](size_t lo, size_t hi) {
      if (e.star || args.size() < lo || args.size() > hi) no_such();
    };
    if (is_agg) {
      fn.kind = WindowFuncKind::kAggregate;
      if (e.star ? name != "count" : args.size() != 1) no_such();
      AggregateSpec as;
      if (name == "count") {
        fn.agg = e.star ? AggKind::kCountStar : AggKind::kCount;
      } else if (name == "sum" || name == "avg") {
        if (!args[0]->type.IsNumeric()) no_such();
        fn.agg = name == "sum" ? AggKind::kSum : AggKind::kAvg;
      } else if (name == "bool_and" || name == "bool_or" || name == "every") {
        // As the aggregate (binder_function.cc): min / max of 0 and 1, = 1.
        if (args[0]->type.id != TypeId::kBoolean) no_such();
        args[0] = Cast(std::move(args[0]), Type::Integer());
        fn.agg = name == "bool_or" ? AggKind::kMax : AggKind::kMin;
      } else {
        if (args[0]->type.id == TypeId::kBoolean || args[0]->type.id == TypeId::kJsonb ||
            args[0]->type.id == TypeId::kJson || args[0]->type.id == TypeId::kUuid ||
            args[0]->type.id == TypeId::kBytea) {
          no_such();
        }
        if (args[0]->type.IsArrayText()) NotSupported(name + " of an array", e.position);
        fn.agg = name == "min" ? AggKind::kMin : AggKind::kMax;
      }
      if (e.filter) {  // agg(x) FILTER (WHERE c) OVER (...): agg(CASE WHEN c THEN x END)
        ExprPtr cond = BindCondition(*e.filter, c, "FILTER");
        ExprPtr input = args.empty() ? Constant(Value::Integer(1)) : std::move(args[0]);
        if (fn.agg == AggKind::kCountStar) fn.agg = AggKind::kCount;
        std::vector<std::pair<ExprPtr, ExprPtr>> whens;
        Type t = input->type;
        whens.emplace_back(std::move(cond), std::move(input));
        ExprPtr x = Case(std::move(whens), Constant(Value::Null(t)));
        if (x->type.id == TypeId::kText && t.IsString()) x->type = t;
        args.clear();
        args.push_back(std::move(x));
      }
      as.kind = fn.agg;
      if (!args.empty()) as.input_type = args[0]->type;
      fn.type = AggregateResultType(as);
    } else if (name == "row_number" || name == "rank" || name == "dense_rank") {
      arity(0, 0);
      fn.kind = name == "row_number" ? WindowFuncKind::kRowNumber
                : name == "rank"     ? WindowFuncKind::kRank
                                     : WindowFuncKind::kDenseRank;
      fn.type = Type::BigInt();
    } else if (name == "percent_rank" || name == "cume_dist") {
      arity(0, 0);
      fn.kind = name == "cume_dist" ? WindowFuncKind::kCumeDist : WindowFuncKind::kPercentRank;
      fn.type = Type::Double();
    } else if (name == "ntile") {
      arity(1, 1);
      fn.kind = WindowFuncKind::kNtile;
      fn.type = Type::BigInt();
    } else if (name == "lag" || name == "lead") {
      arity(1, 3);
      fn.kind = name == "lag" ? WindowFuncKind::kLag : WindowFuncKind::kLead;
      fn.type = args[0]->type;
      if (args.size() == 3 && !(args[2]->type == args[0]->type)) {
        Type t = CommonType(args[0]->type, args[2]->type, false);
        if (!(args[0]->type == t)) args[0] = Cast(std::move(args[0]), t);
        if (!(args[2]->type == t)) args[2] = Cast(std::move(args[2]), t);
        fn.type = t;
      }
    } else if (name == "nth_value") {
      arity(2, 2);
      fn.kind = WindowFuncKind::kNthValue;
      fn.type = args[0]->type;
    } else {
      arity(1, 1);
      fn.kind = name == "first_value" ? WindowFuncKind::kFirstValue : WindowFuncKind::kLastValue;
      fn.type = args[0]->type;
    }
    fn.frame = ParseFrame(*spec.frame, spec.frame_position);
    c.hint = nullptr;
    ws.binding = 2;
    for (const sql::ExprPtr& p : *spec.partition_by) call.partition.push_back(BindExpr(*p, c));
    for (const sql::OrderItem& o : *spec.order_by) {
      call.order.push_back(BindExpr(*o.expr, c));
      SortKeyRef k;
      k.descending = o.direction == sql::SortDirection::kDesc;
      k.nulls_first =
          o.nulls == sql::NullsOrder::kDefault ? k.descending : o.nulls == sql::NullsOrder::kFirst;
      call.order_keys.push_back(k);
    }
    if (fn.frame.groups && call.order.empty()) {
      throw DbError(kWindowingError, "GROUPS mode requires an ORDER BY clause", e.over->position);
    }
    BindRangeOffsets(&fn.frame, call, e.over->position, spec.frame_position);
  } catch (...) {
    ws.binding = 0;
    throw;
  }
  ws.binding = 0;
  call.out = {NewId(), name, call.fn.type};
  ExprPtr ref = ColumnRef(call.out.id, call.out.type);
  ws.calls.push_back(std::move(call));
  if (name == "bool_and" || name == "bool_or" || name == "every") {
    return Compare(CompareOp::kEq, std::move(ref), Constant(Value::Integer(1)));
  }
  return ref;
}

void CheckWindowClause(const std::vector<sql::NamedWindow>& named) {
  for (size_t i = 0; i < named.size(); i++) {
    for (size_t j = 0; j < i; j++) {
      if (named[j].name == named[i].name) {
        throw DbError(kWindowingError, "window \"" + named[i].name + "\" is already defined",
                      named[i].position);
      }
    }
    ResolveWindow(*named[i].spec, &named, i);
  }
}

LogicalOpPtr Binder::PlanWindows(LogicalOpPtr plan, WindowState* ws) {
  // Computed arguments and keys become columns of a pre-projection.
  std::vector<LogicalColumn> cols = plan->columns;
  std::vector<ExprPtr> exprs;
  for (const LogicalColumn& c : cols) exprs.push_back(ColumnRef(c.id, c.type));
  std::vector<std::pair<const Expression*, uint32_t>> computed;
  auto column_of = [&](const ExprPtr& e) -> uint32_t {
    if (e->kind == ExprKind::kColumnRef && plan->FindColumn(e->column) >= 0) return e->column;
    for (const auto& [x, id] : computed) {
      if (ExprEquals(*x, *e)) return id;
    }
    LogicalColumn c{NewId(), "?column?", e->type};
    cols.push_back(c);
    exprs.push_back(CloneExpr(*e));
    computed.emplace_back(e.get(), c.id);
    return c.id;
  };
  for (BoundWindowCall& call : ws->calls) {
    for (const ExprPtr& a : call.args) call.fn.args.push_back(column_of(a));
    for (size_t i = 0; i < call.order.size(); ++i)
      call.order_keys[i].column = column_of(call.order[i]);
  }
  std::vector<std::vector<uint32_t>> partition_ids;
  for (BoundWindowCall& call : ws->calls) {
    std::vector<uint32_t> ids;
    for (const ExprPtr& p : call.partition) ids.push_back(column_of(p));
    partition_ids.push_back(std::move(ids));
  }
  if (!computed.empty()) {
    auto pre = std::make_unique<LogicalOp>();
    pre->kind = LogicalOpKind::kProject;
    pre->columns = std::move(cols);
    pre->expressions = std::move(exprs);
    pre->children.push_back(std::move(plan));
    plan = std::move(pre);
  }
  // One Window operator per distinct specification.
  std::vector<bool> done(ws->calls.size(), false);
  for (size_t i = 0; i < ws->calls.size(); ++i) {
    if (done[i]) continue;
    auto w = std::make_unique<LogicalOp>();
    w->kind = LogicalOpKind::kWindow;
    w->partition_keys = partition_ids[i];
    w->sort_keys = ws->calls[i].order_keys;
    w->columns = plan->columns;
    for (size_t j = i; j < ws->calls.size(); ++j) {
      if (done[j] || !SameSpec(ws->calls[i], ws->calls[j])) continue;
      done[j] = true;
      w->window_functions.push_back(ws->calls[j].fn);
      w->columns.push_back(ws->calls[j].out);
    }
    w->children.push_back(std::move(plan));
    plan = std::move(w);
  }
  return plan;
}

}  // namespace forktail
