// json[b]_to_record(j) AS [alias] (name type, ...) and
// json[b]_to_recordset(j) AS [alias] (name type, ...): PostgreSQL's
// functions returning "record", whose columns the query defines. One row per
// object (the argument, or each element of the argument array); a column is
// the object's field of its name (NULL where absent), converted as the
// column type's input would (a string field's text, any other field's JSON
// text: "1.5" into an integer column is 22P02, "x y" into varchar(1) 22001);
// json and jsonb columns take the field's JSON value. Array-typed columns
// (PostgreSQL converts JSON arrays) are 0A000.
//
// Bound as the objects (a Values row, or jsonb_array_elements' table
// function, so LATERAL arguments work as for other functions in FROM) under
// a projection of the fields.
#include <string>
#include <vector>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/binder_srf.h"
#include "olap/plan/binder/table_function.h"

namespace forktail {
namespace {

sql::ExprPtr AstCall(const std::string& name, sql::ExprPtr arg, const std::string& text) {
  auto literal = std::make_unique<sql::Expr>();
  literal->kind = sql::ExprKind::kLiteral;
  literal->literal_kind = sql::LiteralKind::kString;
  literal->text = text;
  auto call = std::make_unique<sql::Expr>();
  call->kind = sql::ExprKind::kFunction;
  call->names = {name};
  call->children.push_back(std::move(arg));
  call->children.push_back(std::move(literal));
  return call;
}

}  // namespace

bool IsJsonRecordFunction(const std::string& name) {
  return name == "jsonb_to_record" || name == "jsonb_to_recordset" || name == "json_to_record" ||
         name == "json_to_recordset";
}

LogicalOpPtr BindJsonRecordFunction(Binder& binder, const sql::TableRef& ref, const Scope* scope,
                                    ScopeRelation* rel) {
  const sql::Expr& call = *ref.function;
  const std::string& name = call.names.back();
  if (ref.column_types.empty()) {
    throw DbError(sqlstate::kSyntaxError,
                  "a column definition list is required for functions returning \"record\"",
                  call.position);
  }
  const bool json = name.starts_with("json_");
  const bool set = name.ends_with("set");
  if (call.children.size() != 1 || call.star || call.distinct) {
    throw DbError(sqlstate::kUndefinedFunction, "function " + name + " does not exist",
                  call.position);
  }
  if (ref.with_ordinality) NotSupported("WITH ORDINALITY on " + name, call.position);
  ExprContext ctx;
  ctx.scope = scope;
  ctx.clause = "functions in FROM";
  const Type hint = json ? Type::Json() : Type::Jsonb();
  ctx.hint = &hint;
  ExprPtr arg = binder.BindExpr(*call.children[0], ctx);
  if (arg->type.id != hint.id) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + name + "(" + BaseTypeName(arg->type) + ") does not exist",
                  call.position);
  }
  if (json) arg = Cast(std::move(arg), Type::Jsonb());

  // The objects, one per row, in a jsonb column.
  auto objects = std::make_unique<LogicalOp>();
  const LogicalColumn value{binder.NewId(), "value", Type::Jsonb()};
  objects->columns.push_back(value);
  if (set) {
    objects->kind = LogicalOpKind::kTableFunction;
    objects->function_name = "jsonb_array_elements";
    std::vector<ExprPtr> check;
    check.push_back(std::move(arg));
    check.push_back(Constant(Value::String(Type::Text(), name)));
    ExprPtr array = FunctionRegistry::Global().Call("forktail_json_array", std::move(check),
                                                    binder.FunctionContext());
    const bool constant = ColumnsOf(*array).empty();
    objects->expressions.push_back(constant ? Constant(EvaluateNow(std::move(array)))
                                            : std::move(array));
    if (constant) objects = ExpandTableFunction(*objects);
  } else {
    objects->kind = LogicalOpKind::kValues;
    objects->rows.emplace_back();
    objects->rows.back().push_back(std::move(arg));
  }

  // Its fields, bound over a scope of the one column.
  Scope fields;
  fields.relations.push_back({"", {value}, {false}, {}});
  ExprContext fctx;
  fctx.scope = &fields;
  fctx.clause = "functions in FROM";
  std::vector<LogicalColumn> columns;
  std::vector<ExprPtr> exprs;
  rel->alias = ref.alias.empty() ? name : ref.alias;
  for (size_t i = 0; i < ref.column_types.size(); i++) {
    const sql::TypeName& type = ref.column_types[i];
    if (type.array_bounds > 0) {
      NotSupported("an array column in the column definition list of " + name, type.position);
    }
    auto object_ref = std::make_unique<sql::Expr>();
    object_ref->kind = sql::ExprKind::kColumnRef;
    object_ref->names = {"value"};
    sql::ExprPtr object = AstCall("forktail_json_record", std::move(object_ref), name);
    const Type target = TypeFromName(type);
    const bool as_json = target.id == TypeId::kJsonb || target.id == TypeId::kJson;
    ExprPtr field =
        binder.BindExpr(*AstCall(as_json ? "jsonb_object_field" : "jsonb_object_field_text",
                                 std::move(object), ref.column_aliases[i]),
                        fctx);
    if (!(field->type == target)) field = Cast(std::move(field), target);
    LogicalColumn c{binder.NewId(), ref.column_aliases[i], target};
    for (const LogicalColumn& other : columns) {
      if (other.name == c.name) {
        throw DbError(sqlstate::kDuplicateColumn,
                      "column \"" + c.name + "\" specified more than once", type.position);
      }
    }
    columns.push_back(c);
    exprs.push_back(std::move(field));
    rel->columns.push_back(c);
    rel->hidden.push_back(false);
  }
  return MakeProject(std::move(objects), std::move(columns), std::move(exprs));
}

}  // namespace forktail
