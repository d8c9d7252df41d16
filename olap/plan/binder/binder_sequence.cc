// Sequences in the binder (sequence_functions.h): nextval, currval, setval
// and lastval bound to kernels over the statement's SequenceAccess;
// pg_get_serial_sequence; a sequence read in FROM; regclass text; CREATE /
// ALTER SEQUENCE's options.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "olap/parser/parser.h"

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/sequence_functions.h"

namespace forktail {

std::vector<std::string> ParseRegclassText(const std::string& text) {
  std::vector<std::string> names;
  size_t i = 0;
  auto invalid = [] { throw DbError("42602", "invalid name syntax"); };
  for (;;) {
    std::string part;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
    if (i < text.size() && text[i] == '"') {
      for (i++;; i++) {
        if (i >= text.size()) invalid();
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            part += '"';
            i++;
            continue;
          }
          i++;
          break;
        }
        part += text[i];
      }
      if (part.empty()) invalid();
    } else {
      while (i < text.size() && text[i] != '.' &&
             !std::isspace(static_cast<unsigned char>(text[i]))) {
        part += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
        i++;
      }
      if (part.empty()) invalid();
    }
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
    names.push_back(std::move(part));
    if (i == text.size()) return names;
    if (text[i] != '.') invalid();
    i++;
  }
}

namespace {

// The sequence an OID names at run time: 42809 "\"t\" is not a sequence" for
// another relation, XX000 for an OID nothing has (PostgreSQL's errors).
TableId SequenceOfOid(const Catalog& catalog, int64_t oid) {
  const TableId id = catalog_oid::RelationIdOfOid(oid);
  if (id.value() != 0 && catalog.GetSequence(id) != nullptr) return id;
  CatalogView view(catalog, CatalogSession{});
  if (oid >= INT32_MIN && oid <= INT32_MAX) {
    if (const CatalogRelation* r = view.FindRelation(static_cast<int32_t>(oid))) {
      throw DbError(sqlstate::kWrongObjectType, "\"" + r->name + "\" is not a sequence");
    }
  }
  throw DbError(sqlstate::kInternalError,
                "could not open relation with OID " + std::to_string(oid));
}

int64_t OidOfText(const Catalog& catalog, std::string_view text) {
  CatalogView view(catalog, CatalogSession{});
  return view.ResolveRegclass(ParseRegclassText(std::string(text))).oid;
}

const std::string& NameOf(const Catalog& catalog, TableId sequence) {
  return catalog.GetSequence(sequence)->def.name;
}

SequenceAccess& Require(SequenceAccess* access, const char* function) {
  if (access == nullptr) {
    throw DbError(sqlstate::kReadOnlySqlTransaction,
                  std::string("cannot execute ") + function + "() in a read-only transaction");
  }
  return *access;
}

// Argument 0 of a kernel: the sequence, from its OID (BIGINT) or its name.
TableId SequenceArg(SequenceAccess& access, const Vector& arg, uint32_t row) {
  const int64_t oid = arg.type().IsString()
                          ? OidOfText(access.catalog(), arg.data<std::string_view>()[row])
                          : arg.data<int64_t>()[row];
  return SequenceOfOid(access.catalog(), oid);
}

enum class SequenceFn { kNextval, kCurrval, kSetval, kLastval };

ExprPtr SequenceCall(SequenceFn fn, const char* name, SequenceAccess* access,
                     std::vector<ExprPtr> args) {
  ScalarKernel kernel = [access, fn, name](const ScalarArgs& a, Rows rows, Vector* out) {
    SequenceAccess& s = Require(access, name);
    SequenceSessionState& session = s.session();
    auto* o = out->mutable_data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (fn == SequenceFn::kLastval) {
        // PostgreSQL forgets a dropped sequence's value here too.
        if (!session.last_used || s.catalog().GetSequence(*session.last_used) == nullptr) {
          throw DbError("55000", "lastval is not yet defined in this session");
        }
        o[i] = session.currval.at(*session.last_used);
        return;
      }
      const TableId id = SequenceArg(s, *a[0], i);
      switch (fn) {
        case SequenceFn::kNextval:
          o[i] = s.NextVal(id);
          session.currval[id] = o[i];
          session.last_used = id;
          break;
        case SequenceFn::kCurrval: {
          auto it = session.currval.find(id);
          if (it == session.currval.end()) {
            throw DbError("55000", "currval of sequence \"" + NameOf(s.catalog(), id) +
                                       "\" is not yet defined in this session");
          }
          o[i] = it->second;
          break;
        }
        case SequenceFn::kSetval: {
          const int64_t value = a[1]->data<int64_t>()[i];
          const bool called = a.size() < 3 || a[2]->data<bool>()[i];
          s.SetVal(id, value, called);
          if (called) session.currval[id] = value;  // lastval stays (PostgreSQL's rule)
          o[i] = value;
          break;
        }
        case SequenceFn::kLastval:
          break;
      }
    });
  };
  return Function(MakeScalarFunction(name, Type::BigInt(), std::move(kernel), /*strict=*/true,
                                     /*is_volatile=*/true),
                  std::move(args));
}

}  // namespace

bool BindSequenceFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  const std::string& name = call.names.back();
  const size_t n = call.children.size();
  const bool known = (name == "nextval" && n == 1) || (name == "currval" && n == 1) ||
                     (name == "setval" && (n == 2 || n == 3)) || (name == "lastval" && n == 0);
  if (!known || call.star || call.distinct) return false;
  std::vector<ExprPtr> args;
  if (n > 0) {
    // The regclass: a constant name resolved now, else an OID or a name
    // resolved per row.
    const sql::Expr& arg = *call.children[0];
    ExprContext c = WithoutHint(ctx);
    Type text = Type::Text();
    if (binder.IsUnknownTyped(arg)) c.hint = &text;
    ExprPtr x = binder.BindExpr(arg, c);
    if (x->kind == ExprKind::kConstant && x->type.IsString() && !x->constant.is_null()) {
      try {
        x = Constant(Value::BigInt(OidOfText(binder.catalog(), x->constant.GetString())));
      } catch (const DbError& e) {
        RethrowAt(e, arg.position);
      }
    } else if (x->type.IsInteger()) {
      x = Cast(std::move(x), Type::BigInt());
    } else if (!x->type.IsString()) {
      return false;  // 42883, as for any other argument type
    }
    args.push_back(std::move(x));
  }
  if (name == "setval") {
    ExprContext c = WithoutHint(ctx);
    Type big = Type::BigInt();
    c.hint = &big;
    ExprPtr value = binder.BindExpr(*call.children[1], c);
    if (!value->type.IsInteger()) return false;
    args.push_back(Cast(std::move(value), Type::BigInt()));
    if (n == 3) {
      Type boolean = Type::Boolean();
      c.hint = &boolean;
      ExprPtr called = binder.BindExpr(*call.children[2], c);
      if (called->type.id != TypeId::kBoolean) return false;
      args.push_back(std::move(called));
    }
  }
  binder.NoteSequenceUse(name == "nextval" || name == "setval" ? SequenceUse::kWrites
                                                               : SequenceUse::kReads);
  if (name == "nextval") {
    *out = SequenceCall(SequenceFn::kNextval, "nextval", binder.sequence_access(), std::move(args));
  } else if (name == "currval") {
    *out = SequenceCall(SequenceFn::kCurrval, "currval", binder.sequence_access(), std::move(args));
  } else if (name == "setval") {
    *out = SequenceCall(SequenceFn::kSetval, "setval", binder.sequence_access(), std::move(args));
  } else {
    *out = SequenceCall(SequenceFn::kLastval, "lastval", binder.sequence_access(), std::move(args));
  }
  return true;
}

ExprPtr NextvalOf(Binder& binder, TableId sequence) {
  binder.NoteSequenceUse(SequenceUse::kWrites);
  std::vector<ExprPtr> args;
  args.push_back(Constant(Value::BigInt(catalog_oid::TableOid(sequence))));
  return SequenceCall(SequenceFn::kNextval, "nextval", binder.sequence_access(), std::move(args));
}

bool BindSerialSequenceFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx,
                                ExprPtr* out) {
  if (call.names.back() != "pg_get_serial_sequence" || call.children.size() != 2) return false;
  std::vector<ExprPtr> args;
  for (const sql::ExprPtr& a : call.children) {
    ExprContext c = WithoutHint(ctx);
    Type text = Type::Text();
    c.hint = &text;
    args.push_back(binder.BindExpr(*a, c));
    if (!args.back()->type.IsString()) return false;
  }
  CatalogView view(binder.catalog(), CatalogSession{});
  bool constant = true;
  for (const ExprPtr& a : args) {
    if (a->kind == ExprKind::kConstant && a->constant.is_null()) {
      *out = Constant(Value::Null(Type::Text()));
      return true;
    }
    constant = constant && a->kind == ExprKind::kConstant;
  }
  if (!constant) {
    // Known per row only (SQLAlchemy reflects every column with
    // pg_get_serial_sequence(attrelid::regclass::text, attname)): the
    // serial columns of every table now, by the table's regclass name.
    std::map<std::pair<std::string, std::string>, std::string> serial;
    std::set<std::string> tables;
    for (const CatalogRelation& r : view.relations()) {
      if (r.table == nullptr || r.kind != 'r') continue;
      tables.insert(view.RegclassName(r.oid));
      for (const ColumnDef& col : r.table->schema().columns) {
        if (std::optional<std::string> seq = view.SerialSequence(*r.table, col.name)) {
          serial[{view.RegclassName(r.oid), col.name}] = *seq;
        }
      }
    }
    auto kernel = [serial, tables](const ScalarArgs& a, Rows rows, Vector* out) {
      ForEachRow(rows, [&](uint32_t i) {
        const std::string table(a[0]->data<std::string_view>()[i]);
        const std::string column(a[1]->data<std::string_view>()[i]);
        if (tables.count(table) == 0) {
          throw DbError(sqlstate::kUndefinedTable, "relation \"" + table + "\" does not exist");
        }
        auto it = serial.find({table, column});
        if (it == serial.end()) return out->SetNull(i, true);
        out->mutable_data<std::string_view>()[i] = out->arena()->Add(it->second);
      });
    };
    *out = Function(MakeScalarFunction("pg_get_serial_sequence", Type::Text(), kernel),
                    std::move(args));
    return true;
  }
  // The table is a name as regclass reads it; the column is taken as is.
  const CatalogRelation& r =
      view.ResolveRegclass(ParseRegclassText(std::string(args[0]->constant.GetString())));
  const std::string column(args[1]->constant.GetString());
  if (r.table == nullptr || r.kind != 'r' || !r.table->schema().FindColumn(column).has_value()) {
    throw DbError(sqlstate::kUndefinedColumn,
                  "column \"" + column + "\" of relation \"" + r.name + "\" does not exist");
  }
  std::optional<std::string> sequence = view.SerialSequence(*r.table, column);
  *out = Constant(sequence ? Value::Text(*sequence) : Value::Null(Type::Text()));
  return true;
}

LogicalOpPtr BindSequenceRelation(Binder& binder, const Sequence& sequence,
                                  const std::string& alias, ScopeRelation* rel) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  rel->alias = alias;
  const std::pair<const char*, Type> columns[] = {
      {"last_value", Type::BigInt()}, {"log_cnt", Type::BigInt()}, {"is_called", Type::Boolean()}};
  for (const auto& [name, type] : columns) {
    LogicalColumn col{binder.NewId(), name, type};
    op->columns.push_back(col);
    rel->columns.push_back(col);
    rel->hidden.push_back(false);
  }
  // log_cnt: values logged ahead; Forktail logs every change (sequence.h).
  std::vector<ExprPtr> row;
  row.push_back(Constant(Value::BigInt(sequence.state.last_value)));
  row.push_back(Constant(Value::BigInt(0)));
  row.push_back(Constant(Value::Boolean(sequence.state.is_called)));
  op->rows.push_back(std::move(row));
  return op;
}

namespace {

[[noreturn]] void Redundant(int position) {
  throw DbError(sqlstate::kSyntaxError, "conflicting or redundant options", position);
}

// NumericOnly read as bigint input: 22P02 for "1.5", 22003 out of range.
int64_t OptionNumber(const sql::SequenceOption& o) {
  return Value::Text(o.number).CastTo(Type::BigInt()).GetInt();
}

}  // namespace

BoundSequenceOptions BindSequenceOptions(const std::vector<sql::SequenceOption>& options,
                                         SequenceOptionsOf of) {
  BoundSequenceOptions out;
  SequenceOptions& s = out.options;
  std::vector<std::string> seen;
  for (const sql::SequenceOption& o : options) {
    // PostgreSQL's identity column gives AS itself: a user's AS is the second.
    if (std::find(seen.begin(), seen.end(), o.name) != seen.end() ||
        (of == SequenceOptionsOf::kIdentity && o.name == "as")) {
      Redundant(o.position);
    }
    seen.push_back(o.name);
    if (o.name == "as") {
      s.type = TypeFromName(o.type).id;
    } else if (o.name == "cache") {
      s.cache = OptionNumber(o);
    } else if (o.name == "cycle") {
      s.cycle = !o.no;
    } else if (o.name == "increment") {
      s.increment = OptionNumber(o);
    } else if (o.name == "maxvalue") {
      s.max = o.no ? std::optional<int64_t>() : OptionNumber(o);
    } else if (o.name == "minvalue") {
      s.min = o.no ? std::optional<int64_t>() : OptionNumber(o);
    } else if (o.name == "start") {
      s.start = OptionNumber(o);
    } else if (o.name == "restart") {
      s.restart = o.number.empty() ? std::optional<int64_t>() : OptionNumber(o);
    } else if (o.name == "owned_by") {
      if (of == SequenceOptionsOf::kIdentity) {
        NotSupported("OWNED BY in the sequence options of an identity column", o.position);
      }
      out.owned_by_given = true;
      out.owned_by = o.names;
      out.owned_by_position = o.position;
    } else if (o.name == "sequence_name") {
      if (of != SequenceOptionsOf::kIdentity) {
        throw DbError(sqlstate::kSyntaxError, "invalid sequence option SEQUENCE NAME", o.position);
      }
      if (o.names.size() > 1 && o.names[o.names.size() - 2] != "public") {
        throw DbError("3F000", "schema \"" + o.names[o.names.size() - 2] + "\" does not exist");
      }
      out.sequence_name = o.names.back();
    }
  }
  return out;
}

std::pair<TableId, std::string> ResolveOwnedBy(const std::vector<std::string>& names,
                                               const Catalog& catalog) {
  if (names.size() == 1 && names[0] == "none") return {TableId(0), ""};
  if (names.size() < 2) {
    throw DbError(sqlstate::kSyntaxError, "invalid OWNED BY option")
        .WithHint("Specify OWNED BY table.column or OWNED BY NONE.");
  }
  std::vector<std::string> relation(names.begin(), names.end() - 1);
  CatalogView view(catalog, CatalogSession{});
  const CatalogRelation& r = view.ResolveRegclass(relation);
  if (r.kind != 'r' || r.table == nullptr) {
    const char* what = r.kind == 'S'   ? "sequences"
                       : r.kind == 'v' ? "views"
                       : r.kind == 'i' ? "indexes"
                                       : "system relations";
    throw DbError(sqlstate::kWrongObjectType,
                  "sequence cannot be owned by relation \"" + r.name +
                      "\"\nDETAIL:  This operation is not supported for " + what + ".");
  }
  const std::string& column = names.back();
  if (!r.table->schema().FindColumn(column)) {
    throw DbError(sqlstate::kUndefinedColumn,
                  "column \"" + column + "\" of relation \"" + r.name + "\" does not exist");
  }
  return {r.table->id(), column};
}

namespace {

// The string naming the sequence in nextval('s') or nextval('s'::regclass)
// (currval and setval too); null for any other expression.
sql::Expr* SequenceLiteral(sql::Expr& call) {
  if (call.kind != sql::ExprKind::kFunction || call.children.empty()) return nullptr;
  if (call.names.size() > 1 && call.names[0] != "pg_catalog") return nullptr;
  const std::string& name = call.names.back();
  if (name != "nextval" && name != "currval" && name != "setval") return nullptr;
  sql::Expr* arg = call.children[0].get();
  if (arg->kind == sql::ExprKind::kCast && arg->type.name == "regclass" &&
      arg->type.array_bounds == 0 &&
      (arg->type.schema.empty() || arg->type.schema == "pg_catalog")) {
    arg = arg->children[0].get();
  }
  if (arg->kind != sql::ExprKind::kLiteral || arg->literal_kind != sql::LiteralKind::kString) {
    return nullptr;
  }
  return arg;
}

void ForEachSequenceLiteral(sql::Expr& e, const std::function<void(sql::Expr&)>& fn) {
  if (sql::Expr* literal = SequenceLiteral(e)) fn(*literal);
  sql::ForEachSubExpr(e, [&](sql::Expr& c) { ForEachSequenceLiteral(c, fn); });
}

sql::StatementPtr ParseDefault(const std::string& text) {
  std::vector<sql::StatementPtr> parsed = sql::Parser("SELECT " + text).ParseAll();
  if (parsed.size() != 1 || !parsed[0]->query || parsed[0]->query->select_list.size() != 1) {
    throw DbError(sqlstate::kInternalError, "stored DEFAULT \"" + text + "\" does not parse");
  }
  return std::move(parsed[0]);
}

// The text of `e` with each sequence literal's text replaced by `name` of
// it: a lone nextval call as PostgreSQL prints it (nextval('s'::regclass)),
// anything larger as the AST printer writes it.
std::string DefaultText(sql::Expr& e, const std::function<std::string(const std::string&)>& name) {
  ForEachSequenceLiteral(e, [&](sql::Expr& literal) { literal.text = name(literal.text); });
  if (sql::Expr* literal = SequenceLiteral(e);
      literal != nullptr && e.names.back() == "nextval" && e.children.size() == 1) {
    std::vector<std::string> parts = ParseRegclassText(literal->text);
    return NextvalDefault(parts.back());
  }
  return sql::ToString(e);
}

}  // namespace

std::string StoredDefaultText(const sql::Expr& e, const Catalog& catalog) {
  sql::StatementPtr copy = ParseDefault(sql::ToString(e));
  CatalogView view(catalog, CatalogSession{});
  return DefaultText(*copy->query->select_list[0].expr, [&](const std::string& text) {
    return QuoteIdent(view.ResolveRegclass(ParseRegclassText(text)).name);
  });
}

bool DefaultUsesSequence(const std::string& default_sql, const std::string& sequence) {
  if (default_sql.empty()) return false;
  sql::StatementPtr parsed = ParseDefault(default_sql);
  bool uses = false;
  ForEachSequenceLiteral(*parsed->query->select_list[0].expr, [&](sql::Expr& literal) {
    std::vector<std::string> names = ParseRegclassText(literal.text);
    uses = uses || names.back() == sequence;
  });
  return uses;
}

bool CallsSequenceFunctions(const std::string& default_sql) {
  if (default_sql.empty()) return false;
  sql::StatementPtr parsed = ParseDefault(default_sql);
  bool calls = false;
  std::function<void(const sql::Expr&)> visit = [&](const sql::Expr& e) {
    if (e.kind == sql::ExprKind::kFunction && (e.names.size() == 1 || e.names[0] == "pg_catalog")) {
      const std::string& name = e.names.back();
      calls =
          calls || name == "nextval" || name == "currval" || name == "setval" || name == "lastval";
    }
    sql::ForEachSubExpr(e, visit);
  };
  visit(*parsed->query->select_list[0].expr);
  return calls;
}

std::string RenameSequenceInDefault(const std::string& default_sql, const std::string& from,
                                    const std::string& to) {
  sql::StatementPtr parsed = ParseDefault(default_sql);
  return DefaultText(*parsed->query->select_list[0].expr, [&](const std::string& text) {
    return ParseRegclassText(text).back() == from ? QuoteIdent(to) : text;
  });
}

}  // namespace forktail
