#include "olap/plan/logical.h"

#include <cassert>
#include <string>

#include <fmt/format.h>

#include "olap/expression/scalar_function.h"

namespace forktail {

int LogicalOp::FindColumn(uint32_t id) const {
  for (size_t i = 0; i < columns.size(); i++) {
    if (columns[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

bool KeyCompatible(const Type& a, const Type& b) {
  if (a.IsString() && b.IsString()) return a.id == b.id;
  if (a.id != b.id) return false;
  if (a.id == TypeId::kDecimal) return a.scale == b.scale;
  return true;
}

static std::vector<ExprPtr> CloneAll(const std::vector<ExprPtr>& v) {
  std::vector<ExprPtr> out;
  out.reserve(v.size());
  for (const ExprPtr& e : v) out.push_back(e ? CloneExpr(*e) : nullptr);
  return out;
}

LogicalOpPtr ClonePlan(const LogicalOp& op) {
  auto c = std::make_unique<LogicalOp>();
  c->kind = op.kind;
  for (const LogicalOpPtr& child : op.children) c->children.push_back(ClonePlan(*child));
  c->columns = op.columns;
  c->estimated_rows = op.estimated_rows;
  c->table_id = op.table_id;
  c->table_name = op.table_name;
  c->alias = op.alias;
  c->table_columns = op.table_columns;
  c->condition_only = op.condition_only;
  c->runtime_filters = op.runtime_filters;
  c->conditions = CloneAll(op.conditions);
  c->expressions = CloneAll(op.expressions);
  c->join_kind = op.join_kind;
  c->left_keys = op.left_keys;
  c->right_keys = op.right_keys;
  c->join_id = op.join_id;
  c->build_unique = op.build_unique;
  c->exact_filter = op.exact_filter;
  c->exact_min = op.exact_min;
  c->exact_max = op.exact_max;
  c->group_keys = op.group_keys;
  c->aggregates = op.aggregates;
  c->sort_keys = op.sort_keys;
  c->limit = op.limit;
  c->offset = op.offset;
  c->set_distinct = op.set_distinct;
  for (const auto& row : op.rows) c->rows.push_back(CloneAll(row));
  c->apply_kind = op.apply_kind;
  c->partition_keys = op.partition_keys;
  c->window_functions = op.window_functions;
  c->function_name = op.function_name;
  c->series = op.series;
  c->work_table_id = op.work_table_id;
  if (op.subplan) c->subplan = ClonePlan(*op.subplan);
  return c;
}

bool BuildsOnPreservedSide(const LogicalOp& join) {
  // The other side at least this many times bigger than the preserved one.
  constexpr double kRatio = 2.0;
  if (join.kind != LogicalOpKind::kJoin || join.left_keys.empty()) return false;
  if (join.join_kind != LogicalJoinKind::kSemi && join.join_kind != LogicalJoinKind::kAnti &&
      join.join_kind != LogicalJoinKind::kLeft) {
    return false;
  }
  const double preserved = join.children.at(0)->estimated_rows;
  return preserved >= 0 && join.children.at(1)->estimated_rows > kRatio * preserved;
}

const char* LogicalOpKindName(LogicalOpKind k) {
  switch (k) {
    case LogicalOpKind::kGet:
      return "Get";
    case LogicalOpKind::kFilter:
      return "Filter";
    case LogicalOpKind::kProject:
      return "Project";
    case LogicalOpKind::kJoin:
      return "Join";
    case LogicalOpKind::kAggregate:
      return "Aggregate";
    case LogicalOpKind::kDistinct:
      return "Distinct";
    case LogicalOpKind::kSort:
      return "Sort";
    case LogicalOpKind::kLimit:
      return "Limit";
    case LogicalOpKind::kUnion:
      return "Union";
    case LogicalOpKind::kIntersect:
      return "Intersect";
    case LogicalOpKind::kExcept:
      return "Except";
    case LogicalOpKind::kValues:
      return "Values";
    case LogicalOpKind::kApply:
      return "Apply";
    case LogicalOpKind::kWindow:
      return "Window";
    case LogicalOpKind::kTableFunction:
      return "TableFunction";
    case LogicalOpKind::kSeries:
      return "Series";
    case LogicalOpKind::kRecursiveUnion:
      return "RecursiveUnion";
    case LogicalOpKind::kWorkTable:
      return "WorkTable";
  }
  return "?";
}

const char* LogicalJoinKindName(LogicalJoinKind k) {
  switch (k) {
    case LogicalJoinKind::kInner:
      return "inner";
    case LogicalJoinKind::kLeft:
      return "left";
    case LogicalJoinKind::kRight:
      return "right";
    case LogicalJoinKind::kFull:
      return "full";
    case LogicalJoinKind::kCross:
      return "cross";
    case LogicalJoinKind::kSemi:
      return "semi";
    case LogicalJoinKind::kAnti:
      return "anti";
    case LogicalJoinKind::kNullAwareAnti:
      return "null-aware-anti";
    case LogicalJoinKind::kSingle:
      return "single";
  }
  return "?";
}

namespace {

const char* ArithSymbol(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "+";
    case ArithOp::kSub:
      return "-";
    case ArithOp::kMul:
      return "*";
    case ArithOp::kDiv:
      return "/";
    case ArithOp::kMod:
      return "%";
  }
  return "?";
}

const char* FieldName(DateField f) {
  switch (f) {
    case DateField::kYear:
      return "year";
    case DateField::kQuarter:
      return "quarter";
    case DateField::kMonth:
      return "month";
    case DateField::kDay:
      return "day";
    case DateField::kDow:
      return "dow";
    case DateField::kDoy:
      return "doy";
    case DateField::kHour:
      return "hour";
    case DateField::kMinute:
      return "minute";
    case DateField::kSecond:
      return "second";
    case DateField::kEpoch:
      return "epoch";
  }
  return "?";
}

std::string ValueText(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.type().IsString()) return "'" + v.ToString() + "'";
  if (v.type().id == TypeId::kDate) return "date '" + v.ToString() + "'";
  if (v.type().id == TypeId::kTimestamp) return "timestamp '" + v.ToString() + "'";
  if (v.type().id == TypeId::kTimestampTz) return "timestamptz '" + v.ToString() + "'";
  return v.ToString();
}

class ExprPrinter {
 public:
  explicit ExprPrinter(const std::vector<const LogicalColumn*>& inputs) : inputs_(inputs) {}

  std::string Print(const Expression& e) const {
    switch (e.kind) {
      case ExprKind::kColumnRef:
        return Column(e.column);
      case ExprKind::kConstant:
        return ValueText(e.constant);
      case ExprKind::kArith:
        return fmt::format("({} {} {})", Print(*e.children[0]), ArithSymbol(e.arith),
                           Print(*e.children[1]));
      case ExprKind::kCompare:
        return fmt::format("{} {} {}", Print(*e.children[0]), CompareSymbol(e.compare),
                           Print(*e.children[1]));
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        std::string s = "(";
        for (size_t i = 0; i < e.children.size(); i++) {
          if (i > 0) s += e.kind == ExprKind::kAnd ? " AND " : " OR ";
          s += Print(*e.children[i]);
        }
        return s + ")";
      }
      case ExprKind::kNot:
        return "NOT " + Print(*e.children[0]);
      case ExprKind::kIsNull:
        return Print(*e.children[0]) + (e.negated ? " IS NOT NULL" : " IS NULL");
      case ExprKind::kIn: {
        std::string s = Print(*e.children[0]) + (e.negated ? " NOT IN (" : " IN (");
        for (size_t i = 0; i < e.in_list.size(); i++) {
          if (i > 0) s += ", ";
          s += ValueText(e.in_list[i]);
        }
        return s + ")";
      }
      case ExprKind::kLike:
        return fmt::format("{} {}LIKE '{}'", Print(*e.children[0]), e.negated ? "NOT " : "",
                           e.pattern);
      case ExprKind::kCase: {
        std::string s = "CASE";
        size_t n = e.children.size();
        for (size_t i = 0; i + 1 < n; i += 2) {
          s += " WHEN " + Print(*e.children[i]) + " THEN " + Print(*e.children[i + 1]);
        }
        if (n % 2 == 1 && e.children[n - 1]) s += " ELSE " + Print(*e.children[n - 1]);
        return s + " END";
      }
      case ExprKind::kCast:
        return fmt::format("CAST({} AS {})", Print(*e.children[0]), e.type.ToString());
      case ExprKind::kDateAdd:
        return fmt::format("({} + interval({}m {}d {}us))", Print(*e.children[0]),
                           e.interval.months, e.interval.days, e.interval.micros);
      case ExprKind::kExtract:
        return fmt::format("EXTRACT({} FROM {})", FieldName(e.field), Print(*e.children[0]));
      case ExprKind::kSubstring: {
        std::string s = "SUBSTRING(" + Print(*e.children[0]) + " FROM " + Print(*e.children[1]);
        if (e.children.size() > 2 && e.children[2]) s += " FOR " + Print(*e.children[2]);
        return s + ")";
      }
      case ExprKind::kFunction: {
        std::string s = e.function->name() + "(";
        for (size_t i = 0; i < e.children.size(); i++) {
          if (i > 0) s += ", ";
          s += Print(*e.children[i]);
        }
        return s + ")";
      }
      case ExprKind::kCoalesce: {
        std::string s = "COALESCE(";
        for (size_t i = 0; i < e.children.size(); i++) {
          if (i > 0) s += ", ";
          s += Print(*e.children[i]);
        }
        return s + ")";
      }
    }
    return "?";
  }

  std::string Column(uint32_t id) const {
    for (const LogicalColumn* c : inputs_) {
      if (c->id == id) return fmt::format("{}#{}", c->name, id);
    }
    return fmt::format("#{}", id);
  }

 private:
  const std::vector<const LogicalColumn*>& inputs_;
};

std::vector<const LogicalColumn*> InputColumns(const LogicalOp& op) {
  std::vector<const LogicalColumn*> in;
  for (const LogicalOpPtr& child : op.children) {
    for (const LogicalColumn& c : child->columns) in.push_back(&c);
  }
  if (op.kind == LogicalOpKind::kGet) {
    for (const LogicalColumn& c : op.columns) in.push_back(&c);
  }
  return in;
}

std::string ColumnList(const std::vector<LogicalColumn>& cols) {
  std::string s = "[";
  for (size_t i = 0; i < cols.size(); i++) {
    if (i > 0) s += ", ";
    s += fmt::format("{}#{}", cols[i].name, cols[i].id);
  }
  return s + "]";
}

std::string ExprList(const ExprPrinter& p, const std::vector<ExprPtr>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) {
    if (i > 0) s += ", ";
    s += v[i] ? p.Print(*v[i]) : "NULL";
  }
  return s + "]";
}

// " partition=[a#1] order=[b#2 ASC] funcs=[rank#9 := rank(), ...]"
std::string DescribeWindow(const LogicalOp& op, const ExprPrinter& p) {
  std::string s = " partition=[";
  for (size_t i = 0; i < op.partition_keys.size(); i++) {
    s += (i > 0 ? ", " : "") + p.Column(op.partition_keys[i]);
  }
  s += "] order=[";
  for (size_t i = 0; i < op.sort_keys.size(); i++) {
    const SortKeyRef& k = op.sort_keys[i];
    s += (i > 0 ? ", " : "") + p.Column(k.column) + (k.descending ? " DESC" : " ASC");
    if (k.nulls_first != k.descending) s += k.nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  s += "] funcs=[";
  const size_t first = op.columns.size() - op.window_functions.size();
  for (size_t i = 0; i < op.window_functions.size(); i++) {
    const WindowFunction& f = op.window_functions[i];
    const LogicalColumn& c = op.columns[first + i];
    std::string args;
    for (uint32_t a : f.args) args += (args.empty() ? "" : ", ") + p.Column(a);
    if (f.kind == WindowFuncKind::kAggregate && f.agg == AggKind::kCountStar) args = "*";
    std::string frame = FrameToString(f.frame);
    s += fmt::format("{}{}#{} := {}({}){}", i > 0 ? ", " : "", c.name, c.id, WindowFuncName(f),
                     args, frame.empty() ? "" : " " + frame);
  }
  return s + "]";
}

void PrintTree(const LogicalOp& op, int depth, bool with_estimates, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(DescribeOp(op));
  if (with_estimates && op.estimated_rows >= 0) {
    out->append(fmt::format("  (rows={:.0f})", op.estimated_rows));
  }
  out->push_back('\n');
  for (const LogicalOpPtr& child : op.children) PrintTree(*child, depth + 1, with_estimates, out);
  if (op.subplan) {
    out->append(static_cast<size_t>(depth + 1) * 2, ' ');
    out->append("subquery:\n");
    PrintTree(*op.subplan, depth + 2, with_estimates, out);
  }
}

}  // namespace

std::string ExprToString(const Expression& e, const std::vector<const LogicalColumn*>& inputs) {
  return ExprPrinter(inputs).Print(e);
}

std::string ExprToString(const Expression& e) { return ExprToString(e, {}); }

std::string DescribeOp(const LogicalOp& op) {
  std::vector<const LogicalColumn*> inputs = InputColumns(op);
  ExprPrinter p(inputs);
  std::string s = LogicalOpKindName(op.kind);
  switch (op.kind) {
    case LogicalOpKind::kGet:
      s += " " + op.table_name;
      if (!op.alias.empty() && op.alias != op.table_name) s += " AS " + op.alias;
      s += " " + ColumnList(op.columns);
      if (!op.conditions.empty()) s += " filter=" + ExprList(p, op.conditions);
      for (const RuntimeFilterRef& f : op.runtime_filters) {
        s += fmt::format(" {}(join{}:{})", f.kind == RuntimeFilterKind::kBloom ? "lip" : "exact",
                         f.join_id, p.Column(f.probe_column));
      }
      break;
    case LogicalOpKind::kFilter:
      s += " " + ExprList(p, op.conditions);
      break;
    case LogicalOpKind::kProject: {
      s += " [";
      for (size_t i = 0; i < op.columns.size(); i++) {
        if (i > 0) s += ", ";
        const Expression& e = *op.expressions[i];
        std::string text = p.Print(e);
        std::string mine = fmt::format("{}#{}", op.columns[i].name, op.columns[i].id);
        s += text == mine ? mine : mine + " := " + text;
      }
      s += "]";
      break;
    }
    case LogicalOpKind::kJoin: {
      s += fmt::format(" {}", LogicalJoinKindName(op.join_kind));
      if (op.join_id != 0) s += fmt::format(" #{}", op.join_id);
      s += " [";
      for (size_t i = 0; i < op.left_keys.size(); i++) {
        if (i > 0) s += ", ";
        s += p.Column(op.left_keys[i]) + " = " + p.Column(op.right_keys[i]);
      }
      s += "]";
      if (!op.conditions.empty()) s += " residual=" + ExprList(p, op.conditions);
      if (op.build_unique) s += " build_unique";
      if (op.exact_filter) s += fmt::format(" exact[{}..{}]", op.exact_min, op.exact_max);
      break;
    }
    case LogicalOpKind::kAggregate: {
      s += " keys=[";
      for (size_t i = 0; i < op.group_keys.size(); i++) {
        if (i > 0) s += ", ";
        s += p.Column(op.group_keys[i]);
      }
      s += "] aggs=[";
      for (size_t i = 0; i < op.aggregates.size(); i++) {
        if (i > 0) s += ", ";
        const LogicalAggregate& a = op.aggregates[i];
        const LogicalColumn& out_col = op.columns[op.group_keys.size() + i];
        s += fmt::format("{}#{} := {}({})", out_col.name, out_col.id, AggKindName(a.kind),
                         a.kind == AggKind::kCountStar ? "*" : p.Column(a.input));
      }
      s += "]";
      break;
    }
    case LogicalOpKind::kSort: {
      s += " [";
      for (size_t i = 0; i < op.sort_keys.size(); i++) {
        if (i > 0) s += ", ";
        const SortKeyRef& k = op.sort_keys[i];
        s += p.Column(k.column) + (k.descending ? " DESC" : " ASC");
        if (k.nulls_first != k.descending) s += k.nulls_first ? " NULLS FIRST" : " NULLS LAST";
      }
      s += "]";
      break;
    }
    case LogicalOpKind::kLimit:
      if (op.limit != kNoRowLimit) s += fmt::format(" limit={}", op.limit);
      if (op.offset != 0) s += fmt::format(" offset={}", op.offset);
      break;
    case LogicalOpKind::kUnion:
    case LogicalOpKind::kIntersect:
    case LogicalOpKind::kExcept:
      s += op.set_distinct ? " distinct " : " all ";
      s += ColumnList(op.columns);
      break;
    case LogicalOpKind::kValues:
      s += fmt::format(" {} rows ", op.rows.size()) + ColumnList(op.columns);
      break;
    case LogicalOpKind::kDistinct:
      break;
    case LogicalOpKind::kWindow:
      s += DescribeWindow(op, p);
      break;
    case LogicalOpKind::kApply: {
      static constexpr const char* kNames[] = {"scalar", "exists",  "any",
                                               "all",    "lateral", "lateral left"};
      s += fmt::format(" {} bindings=", kNames[static_cast<int>(op.apply_kind)]);
      s += ExprList(p, op.expressions);
      if (IsLateral(op.apply_kind) && op.subplan) {
        s += " -> " + ColumnList(op.subplan->columns);
      } else {
        const LogicalColumn& r = op.columns.back();
        s += fmt::format(" -> {}#{}", r.name, r.id);
      }
      break;
    }
    case LogicalOpKind::kTableFunction:
      s += " " + op.function_name + "(" + ExprList(p, op.expressions) + ") " +
           ColumnList(op.columns);
      break;
    case LogicalOpKind::kSeries:
      s += fmt::format(" from {} step {}: {} rows ", op.series.from, op.series.step,
                       op.series.count) +
           ColumnList(op.columns);
      break;
    case LogicalOpKind::kRecursiveUnion:
    case LogicalOpKind::kWorkTable:
      s += fmt::format(" #{}", op.work_table_id);
      if (op.kind == LogicalOpKind::kRecursiveUnion && op.set_distinct) s += " distinct";
      if (op.kind == LogicalOpKind::kRecursiveUnion && op.limit != kNoRowLimit) {
        s += fmt::format(" limit={}", op.limit);
      }
      s += " " + ColumnList(op.columns);
      break;
  }
  return s;
}

std::string PlanToString(const LogicalOp& op, bool with_estimates) {
  std::string out;
  PrintTree(op, 0, with_estimates, &out);
  return out;
}

}  // namespace forktail
