// System relations, OID alias casts and catalog functions in the binder (see
// binder_catalog.h for why they are answered at bind time).
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/constant_folding.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "olap/expression/scalar_function.h"
#include "olap/parser/keywords.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/plan/catalog/system_catalog.h"

namespace forktail {

namespace {

using Entries = std::vector<std::pair<int64_t, Value>>;

bool IsConstant(const Expression& e) { return e.kind == ExprKind::kConstant; }

// What the size functions (pg_relation_size & co.) report: the memory a
// relation holds. A table: its blocks (2 MiB plain, their encoding frozen);
// its indexes: their entries; a sequence: one PostgreSQL page.
int64_t TableDataBytes(const Table& table) {
  size_t bytes = 0;
  for (size_t b = 0; b < table.block_count(); b++) {
    bytes += table.directory().memory_bytes(BlockNo(static_cast<uint32_t>(b)));
  }
  return static_cast<int64_t>(bytes);
}
int64_t IndexBytes(const Table& table, int index_position) {  // -1: the primary key's
  if (index_position >= 0) {
    return static_cast<int64_t>(
        table.secondary_index(static_cast<size_t>(index_position)).memory_bytes());
  }
  size_t bytes = table.index().memory_bytes();
  if (const OrderedIndex* order = table.key_order_index()) bytes += order->memory_bytes();
  return static_cast<int64_t>(bytes);
}
int64_t TableIndexBytes(const Table& table) {
  int64_t bytes = table.schema().primary_key.empty() ? 0 : IndexBytes(table, -1);
  for (size_t i = 0; i < table.schema().indexes.size(); i++) {
    bytes += IndexBytes(table, static_cast<int>(i));
  }
  return bytes;
}

// pg_size_pretty as PostgreSQL 15 prints it: bytes below 10 kB, then kB, MB,
// GB, TB, PB, each rounded half away from zero and shown below 20480.
std::string PrettySize(int64_t size) {
  constexpr int64_t kLimit = 10 * 1024;
  constexpr int64_t kLimit2 = kLimit * 2 - 1;
  if ((size < 0 ? -size : size) < kLimit) return std::to_string(size) + " bytes";
  auto half_rounded = [](int64_t x) { return (x + (x < 0 ? -1 : 1)) / 2; };
  size >>= 9;  // one extra bit for rounding
  for (const char* unit : {"kB", "MB", "GB", "TB"}) {
    if ((size < 0 ? -size : size) < kLimit2) return std::to_string(half_rounded(size)) + " " + unit;
    size >>= 10;
  }
  return std::to_string(half_rounded(size)) + " PB";
}

std::optional<int64_t> ConstantInt(const Expression& e) {
  if (!IsConstant(e) || e.constant.is_null() || !e.type.IsInteger()) return std::nullopt;
  return e.constant.GetInt();
}

Value TextOrNull(const std::optional<std::string>& s) {
  return s ? Value::Text(*s) : Value::Null(Type::Text());
}

// CASE key WHEN k1 THEN v1 ... ELSE otherwise END; a constant key is looked
// up at once. NULL keys give NULL.
ExprPtr Lookup(ExprPtr key, const Entries& entries, Value otherwise, const Type& type) {
  if (IsConstant(*key)) {
    if (key->constant.is_null()) return Constant(Value::Null(type));
    for (const auto& [k, v] : entries) {
      if (k == key->constant.GetInt()) return Constant(v);
    }
    return Constant(otherwise);
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  whens.emplace_back(IsNull(CloneExpr(*key)), Constant(Value::Null(type)));
  for (const auto& [k, v] : entries) {
    ExprPtr c = Constant(Value::BigInt(k));
    whens.emplace_back(Compare(CompareOp::kEq, CloneExpr(*key), std::move(c)), Constant(v));
  }
  ExprPtr r = Case(std::move(whens), Constant(otherwise));
  r->type = type;
  return r;
}

ExprPtr Membership(ExprPtr key, const std::vector<int64_t>& set) {
  std::vector<Value> list;
  for (int64_t v : set) list.push_back(Value::BigInt(v).CastTo(key->type));
  if (list.empty()) return Constant(Value::Boolean(false));
  return In(std::move(key), std::move(list));
}

ExprPtr AsInteger(ExprPtr e, int position) {
  if (e->type.IsInteger()) return e;
  try {
    return Cast(std::move(e), Type::BigInt());
  } catch (const DbError& err) {
    RethrowAt(err, position);
  }
}

// pg_stat_activity and the signal functions need the server's session
// (BindOptions::session); a statement bound without one (in a snapshot
// process, a view's definition) cannot use them.
void RequireServerSession(Binder& binder, const std::string& what, int position) {
  if (!binder.options().session) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  what +
                      " can be used only in queries that read no tables (Forktail answers them "
                      "in the server process)",
                  position);
  }
  binder.MarkServerStateUse();
}

CatalogView View(const Binder& b) {
  const std::shared_ptr<const CatalogSession>& session = b.options().session;
  return CatalogView(b.catalog(), session ? *session : CatalogSession{});
}

// pg_cancel_backend(pid) / pg_terminate_backend(pid [, timeout]): signals a
// backend through the server's directory when the row is evaluated (a
// volatile call, never folded at bind time), true if it was there. With no
// directory (an embedded session) there is no backend to signal: false, as
// PostgreSQL answers for a PID that is not a backend's.
ExprPtr SignalBackend(Binder& binder, const std::string& name, std::vector<ExprPtr> args,
                      int position) {
  RequireServerSession(binder, name + "()", position);
  const std::shared_ptr<const CatalogSession>& session = binder.options().session;
  BackendDirectory* backends = session ? session->backends : nullptr;
  StatementNotices* notices = session ? session->notices : nullptr;
  const bool terminate = name == "pg_terminate_backend";
  for (ExprPtr& a : args) a = AsInteger(std::move(a), position);
  ScalarKernel kernel = [backends, notices, terminate](const ScalarArgs& a, Rows rows,
                                                       Vector* out) {
    uint8_t* o = out->mutable_data<uint8_t>();
    ForEachRow(rows, [&](uint32_t i) {
      const int64_t pid = a[0]->type().id == TypeId::kBigInt     ? a[0]->data<int64_t>()[i]
                          : a[0]->type().id == TypeId::kSmallInt ? a[0]->data<int16_t>()[i]
                                                                 : a[0]->data<int32_t>()[i];
      int64_t timeout_ms = 0;
      if (a.size() > 1) {
        timeout_ms = a[1]->type().id == TypeId::kBigInt     ? a[1]->data<int64_t>()[i]
                     : a[1]->type().id == TypeId::kSmallInt ? a[1]->data<int16_t>()[i]
                                                            : a[1]->data<int32_t>()[i];
        if (timeout_ms < 0) {
          throw DbError(sqlstate::kInvalidParameterValue, "\"timeout\" must not be negative");
        }
      }
      bool done = false;
      bool found = false;
      if (backends != nullptr && pid == static_cast<int32_t>(pid)) {
        const auto p = static_cast<int32_t>(pid);
        done = terminate ? backends->Terminate(p) : backends->Cancel(p);
        found = done;
        // With a timeout, PostgreSQL waits for the backend to be gone.
        if (done && terminate && timeout_ms > 0) {
          auto gone = [&] {
            for (const BackendActivity& b : backends->List()) {
              if (b.pid == p) return false;
            }
            return true;
          };
          const auto deadline =
              std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
          while (!gone() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          done = gone();
          if (!done && notices != nullptr) {
            notices->Add("WARNING 01000:  backend with PID " + std::to_string(p) +
                         " did not terminate within " + std::to_string(timeout_ms) +
                         " milliseconds");
          }
        }
      }
      // PostgreSQL warns, so that a loop over pg_stat_activity goes on when
      // a backend ended on its own meanwhile.
      if (!found && notices != nullptr) {
        notices->Add("WARNING 01000:  PID " + std::to_string(pid) +
                     " is not a PostgreSQL backend process");
      }
      o[i] = done ? 1 : 0;
    });
  };
  return Function(MakeScalarFunction(name, Type::Boolean(), std::move(kernel), /*strict=*/true,
                                     /*is_volatile=*/true),
                  std::move(args));
}

bool IsIntegerText(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return s.size() < 10;
}

}  // namespace

const SystemRelationDef* SystemRelationFor(const sql::QualifiedName& names) {
  return FindSystemRelation(names);
}

LogicalOpPtr BindSystemRelation(Binder& binder, const SystemRelationDef& def,
                                const std::string& alias, ScopeRelation* rel) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  rel->alias = alias;
  for (const SystemColumn& c : def.columns) {
    LogicalColumn col{binder.NewId(), c.name, c.type};
    op->columns.push_back(col);
    rel->columns.push_back(col);
    rel->hidden.push_back(false);
  }
  if (def.name == "pg_stat_activity") RequireServerSession(binder, def.name, 0);
  for (Row& row : View(binder).Rows(def)) {
    std::vector<ExprPtr> exprs;
    for (Value& v : row) exprs.push_back(Constant(std::move(v)));
    op->rows.push_back(std::move(exprs));
  }
  return op;
}

// A type or schema name known only when the statement runs (a parameter, a
// column: psycopg's TypeInfo.fetch sends `$1::regtype`): its OID, looked up
// per row, 42704 / 3F000 for a name there is none of, as the input
// functions of regtype and regnamespace answer.
ExprPtr RuntimeOidOf(const std::string& type, ExprPtr name, const CatalogView& view, int position) {
  // The names known now: schemas, or relations as regclass prints them
  // and schema-qualified.
  std::vector<std::pair<std::string, int32_t>> names;
  if (type == "regnamespace") {
    for (int32_t n : {catalog_oid::kPgCatalogNamespace, catalog_oid::kPublicNamespace,
                      catalog_oid::kInformationSchemaNamespace}) {
      names.emplace_back(*view.NamespaceName(n), n);
    }
  } else if (type == "regclass") {
    for (const CatalogRelation& r : view.relations()) {
      names.emplace_back(view.RegclassName(r.oid), r.oid);
      names.emplace_back(*view.NamespaceName(r.namespace_oid) + "." + r.name, r.oid);
    }
  } else if (type != "regtype") {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "a cast of a non-constant string to " + type + " is not supported", position);
  }
  auto kernel = [type, names](const ScalarArgs& a, Rows rows, Vector* out) {
    const std::string_view* in = a[0]->data<std::string_view>();
    int32_t* o = out->mutable_data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      const std::string s(in[i]);
      if (IsIntegerText(s)) {
        o[i] = static_cast<int32_t>(std::stoll(s));
      } else if (type == "regtype") {
        const PgCatalogType* pt = FindPgCatalogTypeByName(s);
        if (pt == nullptr) {
          throw DbError(sqlstate::kUndefinedObject, "type \"" + s + "\" does not exist");
        }
        o[i] = pt->oid;
      } else {
        auto it =
            std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == s; });
        if (it == names.end()) {
          throw type == "regclass"
              ? DbError(sqlstate::kUndefinedTable, "relation \"" + s + "\" does not exist")
              : DbError("3F000", "schema \"" + s + "\" does not exist");
        }
        o[i] = it->second;
      }
    });
  };
  std::vector<ExprPtr> args;
  args.push_back(std::move(name));
  return Function(MakeScalarFunction((type + "in").c_str(), Type::Integer(), kernel),
                  std::move(args));
}

bool BindCatalogCast(Binder& binder, const sql::Expr& cast, ExprContext& ctx, ExprPtr* out) {
  if (cast.type.array_bounds > 0) {
    *out = BindArrayCast(binder, cast, ctx);
    return true;
  }
  const std::string& t = cast.type.name;
  if (t != "oid" && t != "regclass" && t != "regtype" && t != "regnamespace" && t != "regproc" &&
      t != "name") {
    return false;
  }
  if (!cast.type.schema.empty() && cast.type.schema != "pg_catalog") return false;
  ExprContext c = WithoutHint(ctx);
  if (t == "name") {
    Type text = Type::Text();
    c.hint = &text;
    ExprPtr x = binder.BindExpr(*cast.children[0], c);
    *out = x->type == text ? std::move(x) : Cast(std::move(x), text);
    return true;
  }
  CatalogView view = View(binder);
  const sql::Expr& arg = *cast.children[0];
  // From a string: the OID.
  if (binder.IsUnknownTyped(arg)) {
    Type text = Type::Text();
    c.hint = &text;
    ExprPtr x = binder.BindExpr(arg, c);
    if (IsConstant(*x) && x->type.IsString()) {
      if (x->constant.is_null()) {
        *out = Constant(Value::Null(Type::Integer()));
        return true;
      }
      std::string s(x->constant.GetString());
      int64_t oid = 0;
      if (IsIntegerText(s)) {
        oid = std::stoll(s);
      } else if (t == "regclass") {
        try {
          oid = view.ResolveRegclass(ParseRegclassText(s)).oid;
        } catch (const DbError& e) {
          RethrowAt(e, arg.position);
        }
      } else if (t == "regtype") {
        const PgCatalogType* pt = FindPgCatalogTypeByName(s);
        if (pt == nullptr) {
          throw DbError(sqlstate::kUndefinedObject, "type \"" + s + "\" does not exist",
                        arg.position);
        }
        oid = pt->oid;
      } else if (t == "regnamespace") {
        int32_t found = 0;
        for (int32_t n : {catalog_oid::kPgCatalogNamespace, catalog_oid::kPublicNamespace,
                          catalog_oid::kInformationSchemaNamespace}) {
          if (view.NamespaceName(n) == s) found = n;
        }
        if (found == 0) {
          throw DbError("3F000", "schema \"" + s + "\" does not exist", arg.position);
        }
        oid = found;
      } else {
        throw DbError(sqlstate::kInvalidTextRepresentation,
                      "invalid input syntax for type " + t + ": \"" + s + "\"", arg.position);
      }
      *out = Constant(Value::Integer(static_cast<int32_t>(oid)));
      return true;
    }
    if (x->type.IsString()) {
      *out = t == "oid" ? Cast(std::move(x), Type::Integer())
                        : RuntimeOidOf(t, std::move(x), view, cast.position);
      return true;
    }
    *out = AsInteger(std::move(x), cast.position);
    if (t != "oid") *out = Cast(std::move(*out), Type::Integer());
    return true;
  }
  ExprPtr x = binder.BindExpr(arg, c);
  // A regclass value is its relation's name here: its OID is looked up.
  const bool regclass_value = arg.kind == sql::ExprKind::kCast && arg.type.name == "regclass";
  if (t == "oid") {
    *out = !x->type.IsString() ? AsInteger(std::move(x), cast.position)
           : regclass_value    ? RuntimeOidOf("regclass", std::move(x), view, cast.position)
                               : Cast(std::move(x), Type::Integer());
    return true;
  }
  if (x->type.IsString()) {
    // A reg* value cast again is a name already; any other string (a
    // parameter, a column) names a relation, type or schema: its OID, as
    // for a string constant.
    const bool reg_value = arg.kind == sql::ExprKind::kCast && arg.type.name.rfind("reg", 0) == 0;
    *out = reg_value ? std::move(x) : RuntimeOidOf(t, std::move(x), view, cast.position);
    return true;
  }
  x = AsInteger(std::move(x), cast.position);
  Entries entries;
  if (t == "regclass") {
    for (const CatalogRelation& r : view.relations()) {
      entries.emplace_back(r.oid, Value::Text(view.RegclassName(r.oid)));
    }
  } else if (t == "regtype") {
    for (const PgCatalogType& pt : PgCatalogTypes()) {
      entries.emplace_back(pt.oid, Value::Text(pt.display));
    }
  } else if (t == "regnamespace") {
    for (int32_t n : {catalog_oid::kPgCatalogNamespace, catalog_oid::kPublicNamespace,
                      catalog_oid::kInformationSchemaNamespace}) {
      entries.emplace_back(n, Value::Text(*view.NamespaceName(n)));
    }
  }
  entries.emplace_back(0, Value::Text("-"));
  // An unknown OID prints as its number.
  ExprPtr number = Cast(CloneExpr(*x), Type::Text());
  if (IsConstant(*x)) {
    std::optional<int64_t> k = ConstantInt(*x);
    for (const auto& [oid, v] : entries) {
      if (k && oid == *k) {
        *out = Constant(v);
        return true;
      }
    }
    *out = std::move(number);
    return true;
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  for (const auto& [oid, v] : entries) {
    whens.emplace_back(Compare(CompareOp::kEq, CloneExpr(*x), Constant(Value::BigInt(oid))),
                       Constant(v));
  }
  *out = Case(std::move(whens), std::move(number));
  (*out)->type = Type::Text();
  return true;
}

namespace {

// current_setting(name [, missing_ok]): the session's value as SHOW gives it,
// read when the statement is bound (as PostgreSQL's is per call: a statement
// does not change a setting while it runs); 42704 for an unknown name, NULL
// with missing_ok. Constant arguments give a constant; others (psql's
// \dconfig passes pg_settings.name) look each row's name up in the values
// read at bind time.
ExprPtr CurrentSetting(Binder& binder, const sql::Expr& call, ExprContext& ctx,
                       const CatalogSession& session) {
  auto bind = [&](size_t i, const Type& hint) {
    ExprContext c = WithoutHint(ctx);
    c.hint = &hint;
    return FoldExpression(binder.BindExpr(*call.children[i], c));
  };
  ExprPtr name = bind(0, Type::Text());
  ExprPtr missing_ok =
      call.children.size() == 2 ? bind(1, Type::Boolean()) : Constant(Value::Boolean(false));
  if (!name->type.IsString() || missing_ok->type.id != TypeId::kBoolean) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function current_setting(" + BaseTypeName(name->type) + ") does not exist",
                  call.position);
  }
  // Lower-cased names: parameter names are case-insensitive.
  auto values = std::make_shared<std::map<std::string, std::string>>();
  if (session.settings) {
    for (const std::vector<std::string>& row : session.settings()) {
      std::string key = row[0];
      for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      (*values)[key] = row[1];
    }
  }
  const int position = call.position;
  auto lookup = [values, position](std::string_view wanted,
                                   bool missing_ok) -> std::optional<std::string> {
    std::string key(wanted);
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto it = values->find(key);
    if (it != values->end()) return it->second;
    if (missing_ok) return std::nullopt;
    throw DbError(sqlstate::kUndefinedObject,
                  "unrecognized configuration parameter \"" + std::string(wanted) + "\"", position);
  };
  if (name->kind == ExprKind::kConstant && missing_ok->kind == ExprKind::kConstant) {
    if (name->constant.is_null() || missing_ok->constant.is_null()) {
      return Constant(Value::Null(Type::Text()));
    }
    std::optional<std::string> v =
        lookup(name->constant.GetString(), missing_ok->constant.GetBool());
    return Constant(v ? Value::Text(std::move(*v)) : Value::Null(Type::Text()));
  }
  std::vector<ExprPtr> args;
  args.push_back(name->type.id == TypeId::kText ? std::move(name)
                                                : Cast(std::move(name), Type::Text()));
  args.push_back(std::move(missing_ok));
  return Function(MakeScalarFunction("current_setting", Type::Text(),
                                     [lookup](const ScalarArgs& a, Rows rows, Vector* out) {
                                       const auto* names = a[0]->data<std::string_view>();
                                       const uint8_t* ok = a[1]->data<uint8_t>();
                                       auto* o = out->mutable_data<std::string_view>();
                                       ForEachRow(rows, [&](uint32_t i) {
                                         std::optional<std::string> v =
                                             lookup(names[i], ok[i] != 0);
                                         if (!v) return out->SetNull(i, true);
                                         o[i] = out->arena()->Add(*v);
                                       });
                                     }),
                  std::move(args));
}

}  // namespace

bool BindCatalogFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  if (call.names.size() > 1 && call.names[0] != "pg_catalog") return false;
  if (BindArrayFunction(binder, call, ctx, out)) return true;
  const std::string& name = call.names.back();
  size_t n = call.children.size();
  CatalogView view = View(binder);
  const CatalogSession& session = view.session();
  auto arg = [&](size_t i, const Type& hint) {
    ExprContext c = WithoutHint(ctx);
    c.hint = &hint;
    return binder.BindExpr(*call.children[i], c);
  };
  auto oid_arg = [&](size_t i) { return AsInteger(arg(i, Type::Integer()), call.position); };
  // Functions without arguments (also the SQL keywords current_user etc.).
  if (n == 0) {
    if (name == "current_user" || name == "session_user" || name == "user" ||
        name == "current_role") {
      *out = Constant(Value::Text(session.user));
    } else if (name == "current_database" || name == "current_catalog") {
      *out = Constant(Value::Text(session.database));
    } else if (name == "current_schema") {
      *out = Constant(Value::Text("public"));
    } else if (name == "version") {
      *out = Constant(Value::Text(std::string("PostgreSQL ") + kPostgresVersion +
                                  " (Forktail) on x86_64-pc-linux-gnu, 64-bit"));
    } else if (name == "pg_backend_pid") {
      *out = Constant(Value::Integer(session.backend_pid));
    } else {
      return false;
    }
    return true;
  }
  if ((name == "set_config" && n == 3) || (name == "pg_sleep" && n == 1) ||
      (name == "pg_notify" && n == 2)) {
    // They act on the session: the session runs them when they are the
    // whole statement (FindSessionFunctionCall, query_runner.h).
    NotSupported(name + "() other than alone in a SELECT without FROM", call.position);
  }
  if (name == "current_setting" && (n == 1 || n == 2)) {
    *out = CurrentSetting(binder, call, ctx, session);
    return true;
  }
  if (name == "pg_typeof" && n == 1) {
    // The argument's type as regtype prints it (no modifiers); an untyped
    // literal's is "unknown". Not evaluated: only its type counts.
    if (binder.IsUnknownTyped(*call.children[0])) {
      *out = Constant(Value::Text("unknown"));
    } else {
      ExprContext c = WithoutHint(ctx);
      *out = Constant(Value::Text(BaseTypeName(binder.BindExpr(*call.children[0], c)->type)));
    }
    return true;
  }
  if ((name == "pg_cancel_backend" && n == 1) || (name == "pg_terminate_backend" && n <= 2)) {
    Type int_hint = Type::Integer();
    std::vector<ExprPtr> args;
    args.push_back(arg(0, int_hint));
    if (n == 2) {
      Type bigint_hint = Type::BigInt();
      args.push_back(arg(1, bigint_hint));
    }
    *out = SignalBackend(binder, name, std::move(args), call.position);
    return true;
  }
  if (name == "pg_table_is_visible" && n == 1) {
    std::vector<int64_t> visible;
    for (const CatalogRelation& r : view.relations()) {
      if (r.namespace_oid != catalog_oid::kInformationSchemaNamespace &&
          view.FindRelationByName(r.name) == &r) {
        visible.push_back(r.oid);
      }
    }
    *out = Membership(oid_arg(0), visible);
  } else if (name == "pg_type_is_visible" && n == 1) {
    // Every type is pg_catalog's, which every search_path reads.
    std::vector<int64_t> types;
    for (const PgCatalogType& t : PgCatalogTypes()) types.push_back(t.oid);
    *out = Membership(oid_arg(0), types);
  } else if (name == "pg_collation_is_visible" && n == 1) {
    // pg_collation's rows (default, C, POSIX) are all pg_catalog's.
    *out = Membership(oid_arg(0), {100, 950, 951});
  } else if (name == "pg_function_is_visible" && n == 1) {
    // pg_proc lists only the procedures CALL runs (all in public).
    std::vector<int64_t> procedures;
    if (session.procedures) {
      for (const CatalogProcedure& p : session.procedures()) {
        procedures.push_back(catalog_oid::ProcedureOid(p.name));
      }
    }
    *out = Membership(oid_arg(0), procedures);
  } else if ((name == "pg_get_function_arguments" ||
              name == "pg_get_function_identity_arguments") &&
             n == 1) {
    Entries e;
    if (session.procedures) {
      for (const CatalogProcedure& p : session.procedures()) {
        e.push_back({catalog_oid::ProcedureOid(p.name), Value::Text(ProcedureArguments(p))});
      }
    }
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "pg_get_function_result" && n == 1) {
    // NULL for a procedure, as in PostgreSQL.
    *out = Lookup(oid_arg(0), Entries{}, Value::Null(Type::Text()), Type::Text());
  } else if (name == "pg_relation_is_publishable" && n == 1) {
    std::vector<int64_t> tables;
    for (const CatalogRelation& r : view.relations()) {
      if (r.system == nullptr && r.kind == 'r') tables.push_back(r.oid);
    }
    *out = Membership(oid_arg(0), tables);
  } else if (name == "pg_get_userbyid" && n == 1) {
    Entries e = {{catalog_oid::kSuperuserRole, Value::Text(session.user)},
                 {catalog_oid::kDatabaseOwnerRole, Value::Text("pg_database_owner")}};
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "pg_get_indexdef" && (n == 1 || n == 3)) {
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      if (r.kind == 'i') e.emplace_back(r.oid, TextOrNull(view.IndexDef(r.oid)));
    }
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "pg_get_constraintdef" && (n == 1 || n == 2)) {
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      if (r.kind == 'i') e.emplace_back(r.oid + 1, TextOrNull(view.ConstraintDef(r.oid + 1)));
      if (r.kind == 'r' && r.table != nullptr) {
        for (size_t k = 0; k < r.table->schema().checks.size(); k++) {
          int32_t oid = catalog_oid::CheckOid(r.table->id(), k);
          e.emplace_back(oid, TextOrNull(view.ConstraintDef(oid)));
        }
        for (size_t k = 0; k < r.table->schema().foreign_keys.size(); k++) {
          int32_t oid = catalog_oid::ForeignKeyOid(r.table->id(), k);
          e.emplace_back(oid, TextOrNull(view.ConstraintDef(oid)));
        }
      }
    }
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "format_type" && n == 2) {
    // Depends on the (fixed) type list only: a function evaluated per row.
    std::vector<ExprPtr> args;
    args.push_back(Cast(oid_arg(0), Type::BigInt()));
    args.push_back(Cast(AsInteger(arg(1, Type::Integer()), call.position), Type::BigInt()));
    auto kernel = [](const ScalarArgs& a, Rows rows, Vector* out) {
      const int64_t* oid = a[0]->data<int64_t>();
      const int64_t* mod = a[1]->data<int64_t>();
      auto* o = out->mutable_data<std::string_view>();
      ForEachRow(rows, [&](uint32_t i) {
        if (a[0]->IsNull(i)) return out->SetNull(i, true);
        int64_t m = a[1]->IsNull(i) ? -1 : mod[i];
        o[i] =
            out->arena()->Add(FormatPgType(static_cast<int32_t>(oid[i]), static_cast<int32_t>(m)));
      });
    };
    *out = Function(MakeScalarFunction("format_type", Type::Text(), kernel, /*strict=*/false),
                    std::move(args));
  } else if (name == "quote_ident" && n == 1) {
    // PostgreSQL's quote_identifier: bare only when a plain lower-case
    // identifier that is no keyword other than an unreserved one.
    std::vector<ExprPtr> args;
    args.push_back(arg(0, Type::Text()));
    if (!args[0]->type.IsString()) args[0] = Cast(std::move(args[0]), Type::Text());
    auto kernel = [](const ScalarArgs& a, Rows rows, Vector* out) {
      const auto* in = a[0]->data<std::string_view>();
      auto* o = out->mutable_data<std::string_view>();
      ForEachRow(rows, [&](uint32_t i) {
        o[i] = out->arena()->Add(QuoteIdentifierSql(std::string(in[i])));
      });
    };
    *out = Function(MakeScalarFunction("quote_ident", Type::Text(), kernel), std::move(args));
  } else if (name == "pg_get_expr" && (n == 2 || n == 3)) {
    // Forktail stores no expression trees: every pg_node_tree is NULL.
    ExprPtr tree = arg(0, Type::Text());
    oid_arg(1);
    *out = tree->type.IsString() ? std::move(tree) : Constant(Value::Null(Type::Text()));
  } else if (name == "shobj_description" && n == 2) {
    oid_arg(0);  // no comments on shared objects
    arg(1, Type::Text());
    *out = Constant(Value::Null(Type::Text()));
  } else if (name == "obj_description" && (n == 1 || n == 2)) {
    // COMMENT ON TABLE (pg_description, objsubid 0); other catalogs' objects
    // have none.
    bool pg_class = true;
    if (n == 2) {
      ExprPtr catalog = arg(1, Type::Text());
      pg_class = !IsConstant(*catalog) ||
                 (!catalog->constant.is_null() && catalog->constant.GetString() == "pg_class");
    }
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      if (pg_class && r.kind == 'r' && r.table != nullptr && !r.table->schema().comment.empty()) {
        e.emplace_back(r.oid, Value::Text(r.table->schema().comment));
      }
    }
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "col_description" && n == 2) {
    // COMMENT ON COLUMN: looked up by oid * 65536 + attnum.
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      if (r.kind != 'r' || r.table == nullptr) continue;
      const std::vector<ColumnDef>& columns = r.table->schema().columns;
      for (size_t c = 0; c < columns.size(); c++) {
        if (columns[c].comment.empty()) continue;
        e.emplace_back(int64_t{r.oid} * 65536 + static_cast<int64_t>(c) + 1,
                       Value::Text(columns[c].comment));
      }
    }
    ExprPtr key = Arith(
        ArithOp::kAdd,
        Arith(ArithOp::kMul, Cast(oid_arg(0), Type::BigInt()), Constant(Value::BigInt(65536))),
        Cast(AsInteger(arg(1, Type::Integer()), call.position), Type::BigInt()));
    *out = Lookup(FoldExpression(std::move(key)), e, Value::Null(Type::Text()), Type::Text());
  } else if (name == "pg_get_viewdef" && (n == 1 || n == 2)) {
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      if (r.view != nullptr) e.emplace_back(r.oid, TextOrNull(view.ViewDefinition(r.oid)));
    }
    *out = Lookup(oid_arg(0), e, Value::Null(Type::Text()), Type::Text());
  } else if ((name == "pg_get_triggerdef" && (n == 1 || n == 2)) ||
             (name == "pg_get_statisticsobjdef_columns" && n == 1)) {
    oid_arg(0);  // no triggers or statistics objects
    *out = Constant(Value::Null(Type::Text()));
  } else if (name == "pg_partition_ancestors" && n == 1) {
    // No partitioning: a relation is its own only ancestor.
    *out = oid_arg(0);
  } else if (name == "pg_size_pretty" && n == 1) {
    std::vector<ExprPtr> args;
    ExprPtr size = arg(0, Type::BigInt());
    args.push_back(size->type == Type::BigInt() ? std::move(size)
                                                : Cast(std::move(size), Type::BigInt()));
    auto kernel = [](const ScalarArgs& a, Rows rows, Vector* out) {
      const int64_t* in = a[0]->data<int64_t>();
      auto* o = out->mutable_data<std::string_view>();
      ForEachRow(rows, [&](uint32_t i) { o[i] = out->arena()->Add(PrettySize(in[i])); });
    };
    *out = Function(MakeScalarFunction("pg_size_pretty", Type::Text(), kernel), std::move(args));
  } else if (((name == "pg_relation_size") && (n == 1 || n == 2)) ||
             ((name == "pg_table_size" || name == "pg_indexes_size" ||
               name == "pg_total_relation_size") &&
              n == 1)) {
    // A relation given as a name literal is a regclass ('t' for 't'::regclass).
    const sql::Expr& first = *call.children[0];
    ExprPtr relation;
    if (binder.IsUnknownTyped(first) && first.kind == sql::ExprKind::kLiteral &&
        first.literal_kind == sql::LiteralKind::kString) {
      try {
        relation =
            Constant(Value::Integer(view.ResolveRegclass(ParseRegclassText(first.text)).oid));
      } catch (const DbError& e) {
        RethrowAt(e, first.position);
      }
    } else {
      relation = oid_arg(0);
    }
    bool main_fork = true;  // the other forks (fsm, vm, init) are empty
    if (n == 2) {
      ExprPtr fork = arg(1, Type::Text());
      if (!IsConstant(*fork))
        NotSupported(name + "() of a fork that is not a constant", call.position);
      main_fork = !fork->constant.is_null() && fork->constant.GetString() == "main";
    }
    Entries e;
    for (const CatalogRelation& r : view.relations()) {
      int64_t data = 0, indexes = 0;
      if (r.kind == 'r' && r.table != nullptr) {
        data = TableDataBytes(*r.table);
        indexes = TableIndexBytes(*r.table);
      } else if (r.kind == 'i' && r.table != nullptr) {
        data = IndexBytes(*r.table, r.index_position);
      } else if (r.kind == 'S') {
        data = 8192;
      }
      const int64_t bytes = name == "pg_indexes_size"          ? indexes
                            : name == "pg_total_relation_size" ? data + indexes
                                                               : (main_fork ? data : 0);
      e.emplace_back(r.oid, Value::BigInt(bytes));
    }
    *out = Lookup(std::move(relation), e, Value::Null(Type::BigInt()), Type::BigInt());
  } else if (name == "pg_database_size" && n == 1) {
    arg(0, Type::Text());  // this database, whatever its name or OID
    int64_t bytes = 0;
    for (const CatalogRelation& r : view.relations()) {
      if (r.kind == 'r' && r.table != nullptr) {
        bytes += TableDataBytes(*r.table) + TableIndexBytes(*r.table);
      }
    }
    *out = Constant(Value::BigInt(bytes));
  } else if (name == "pg_encoding_to_char" && n == 1) {
    *out = Lookup(oid_arg(0), {{6, Value::Text("UTF8")}}, Value::Text(""), Type::Text());
  } else if (name == "current_schemas" && n == 1) {
    ExprPtr implicit = arg(0, Type::Boolean());
    std::vector<std::pair<ExprPtr, ExprPtr>> whens;
    Type names = ArrayTextType(Type::Text());
    whens.emplace_back(std::move(implicit), Constant(Value::String(names, "{pg_catalog,public}")));
    *out = Case(std::move(whens), Constant(Value::String(names, "{public}")));
    (*out)->type = names;
  } else if (name == "has_table_privilege" || name == "has_schema_privilege" ||
             name == "has_database_privilege" || name == "has_column_privilege") {
    for (size_t i = 0; i < n; i++) arg(i, Type::Text());
    *out = Constant(Value::Boolean(true));  // one user, a superuser
  } else {
    return false;
  }
  return true;
}

}  // namespace forktail
