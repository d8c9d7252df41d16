// The binder's side of the system catalog (system_catalog.h): references to
// pg_catalog / information_schema relations, casts to PostgreSQL's OID alias
// types, and the catalog functions psql and drivers call.
//
// Everything a catalog function or an OID alias cast answers depends only on
// the Catalog, which the binder reads at bind time. So they are bound to
// ordinary expressions, never to a runtime catalog access (which a snapshot
// process could not make):
//   - a constant argument is answered at bind time (a constant);
//   - a non-constant argument becomes a lookup over the catalog's objects:
//     CASE x WHEN oid1 THEN answer1 ... ELSE <answer for an unknown OID> END
//     (or x IN (...) for the boolean ones). The lookup covers every object
//     the catalog views list, so any value read from them is answered.
// format_type() needs only the fixed list of types: it is a ScalarFunction
// evaluated per row.
//
// OID alias types. oid is INTEGER. x::regclass / regtype / regnamespace:
// from a string (the literal '16484' or 'public.t') the OID, an INTEGER
// (unknown names: 42P01 / 42704 / 3F000 as PostgreSQL); from an integer the
// object's name as TEXT (the number if no such object), which is what
// PostgreSQL prints and what ::text and comparisons with names see.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/catalog/system_catalog.h"
#include "storage/value/array_text.h"

namespace forktail {

// The relation `names` refers to if it is a system relation (else null).
const SystemRelationDef* SystemRelationFor(const sql::QualifiedName& names);

// A FROM reference to a system relation: a Values node of its rows; fills
// `rel` with its columns under `alias`.
LogicalOpPtr BindSystemRelation(Binder& binder, const SystemRelationDef& def,
                                const std::string& alias, ScopeRelation* rel);

// A cast to oid / regclass / regtype / regnamespace / regproc / name:
// true and *out set; false for other target types.
bool BindCatalogCast(Binder& binder, const sql::Expr& cast, ExprContext& ctx, ExprPtr* out);

// A catalog function (pg_table_is_visible, format_type, pg_get_indexdef,
// current_database(), version(), ...): true and *out set; false if `call`
// is not one.
bool BindCatalogFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out);

// nextval / currval / setval / lastval (binder_sequence.cc,
// sequence_functions.h): true and *out set, the binder's sequence use
// raised; false if `call` is none of them.
bool BindSequenceFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out);

// generate_series's arguments (binder_catalog_from.cc): 2 or 3 integers, or
// two timestamps (a DATE or TIMESTAMPTZ makes both TIMESTAMPTZ) and an
// interval step; cast to the series' type, which is returned. 0A000 for
// other types.
Type BindSeriesArguments(Binder& binder, const std::vector<sql::ExprPtr>& children,
                         const ExprContext& ctx, int position, std::vector<ExprPtr>* out);
// generate_subscripts(array, dim [, reverse]): the arguments bound (42883
// for others); the subscripts are integers.
std::vector<ExprPtr> BindSubscriptsArguments(Binder& binder,
                                             const std::vector<sql::ExprPtr>& children,
                                             ExprContext& ctx, int position);

// The set-returning functions over strings (binder_catalog_from.cc):
// regexp_matches(s, pattern [, flags]) (rows of TEXT[]),
// regexp_split_to_table(s, pattern [, flags]) and string_to_table(s,
// separator [, null_string]) (rows of TEXT). Whether `name` is one of them;
// then the arguments bound as TEXT (42883 for other types or counts) and
// the rows' type returned.
bool IsTextSetFunction(const std::string& name);
Type BindTextSetArguments(Binder& binder, const std::string& name,
                          const std::vector<sql::ExprPtr>& children, const ExprContext& ctx,
                          int position, std::vector<ExprPtr>* out);

// format(), quote_literal() and quote_nullable() (binder_format.cc), and
// PostgreSQL's quoting of an identifier (quote_ident) and a literal.
bool BindFormatFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out);
std::string QuoteIdentifierSql(const std::string& s);
std::string QuoteLiteralSql(std::string_view s);
// nextval of a known sequence (an identity column's default).
ExprPtr NextvalOf(Binder& binder, TableId sequence);
// pg_get_serial_sequence(table, column), answered at bind time like the
// other catalog functions: true and *out set; false if `call` is not it.
bool BindSerialSequenceFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx,
                                ExprPtr* out);
// FROM a sequence: its one row (last_value, log_cnt, is_called) as the
// catalog holds it at bind time.
LogicalOpPtr BindSequenceRelation(Binder& binder, const Sequence& sequence,
                                  const std::string& alias, ScopeRelation* rel);

// The array argument of a function or operator: an array-typed expression,
// or an unknown literal taken as an array of `element`.
ExprPtr BindArrayArgument(Binder& binder, const sql::Expr& e, ExprContext& ctx,
                          const Type& element);
// ARRAY[...], a[i], x = ANY (array), x <> ALL (array).
bool IsArrayExpr(const sql::Expr& e);
ExprPtr BindArrayExpr(Binder& binder, const sql::Expr& e, ExprContext& ctx);
// A value as its type's output function prints it, as TEXT (array
// elements, format() and string_agg arguments): a boolean as t or f, where
// its cast to text says true or false; strings as they are.
ExprPtr OutputText(ExprPtr e);
// a || b with an array operand (array_cat, array_append, array_prepend; an
// unknown literal beside an array is one); nullptr when neither is an array.
ExprPtr BindArrayConcat(ExprPtr left, ExprPtr right, bool left_unknown, bool right_unknown,
                        int position);
// left @> right, left <@ right, left && right for an array `left` (already
// bound); the right side an array of its element type.
ExprPtr BindArrayContainment(Binder& binder, const sql::Expr& e, ExprPtr left, ExprContext& ctx);
// array_to_string, array_upper/lower/length, cardinality, array_cat,
// array_append, array_prepend: true and *out set.
bool BindArrayFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out);
// x::T[]
ExprPtr BindArrayCast(Binder& binder, const sql::Expr& cast, ExprContext& ctx);

// string_agg(text, sep [ORDER BY keys]) and array_agg(x [ORDER BY keys])
// (binder_list_agg.cc; olap/execution/aggregate/list_agg.h): a constant
// separator, no FILTER or DISTINCT; keys of any type but jsonb.
ExprPtr BindListAggregate(Binder& binder, const sql::Expr& call, ExprContext& ctx);
// The same with its parts named: `value` aggregated (and `separator`, for
// string_agg) sorted by `order`; `order_is_argument`: an ORDER BY ordinal 1
// names the value (ARRAY(subquery)'s rewrite).
struct ListAggCall {
  const std::string& name;  // string_agg or array_agg
  const sql::Expr& value;
  const sql::Expr* separator;
  const std::vector<sql::OrderItem>& order;
  const sql::Expr* filter;
  bool distinct;
  bool order_is_argument;
  int position;
};
ExprPtr BindListAggregateOf(Binder& binder, const ListAggCall& call, ExprContext& ctx);
// percentile_cont / percentile_disc (one fraction) and mode(), WITHIN GROUP
// (ORDER BY x): the sorted array_agg of x, then the value picked from it
// (binder_ordered_set.cc).
bool IsOrderedSetAggregateName(const std::string& name);
// The operators of numbers beyond + - * / %: x ^ y (power), the integers'
// bitwise & | # ~ << >>, and prefix |/ (sqrt), ||/ (cbrt), @ (abs)
// (binder_operators.cc); nullptr for any other operator.
ExprPtr BindMathOperator(Binder& binder, const sql::Expr& e, ExprContext& ctx);
// 42883 "function f(argument types) does not exist" for the call `e`
// (binder_function.cc); WITHIN GROUP's arguments count as arguments.
[[noreturn]] void NoSuchFunction(Binder& binder, const sql::Expr& e, ExprContext& ctx);
ExprPtr BindOrderedSetAggregate(Binder& binder, const sql::Expr& call, ExprContext& ctx);
// For a string_agg of a text made per row (json_agg & co., binder_jsonb.cc):
// binds call's ORDER BY and returns `text` prefixed with each row's key bytes
// (agg->order keyed); `text` itself without ORDER BY. With distinct_value
// (the aggregate's DISTINCT argument, bound) the list is sorted by it and
// each text kept once; ORDER BY may name only it (else 42P10). Call it while
// the aggregate's arguments are being bound (AggState::in_aggregate).
ExprPtr OrderListAggInput(Binder& binder, const sql::Expr& call, ExprPtr text,
                          LogicalAggregate* agg, ExprContext& ctx,
                          ExprPtr distinct_value = nullptr);
// ARRAY(SELECT x FROM .. [WHERE ..] [ORDER BY ..]) as the scalar subquery
// COALESCE((SELECT array_agg(x [ORDER BY ..]) ...), '{}') (binder_list_agg.cc).
ExprPtr BindArraySubquery(Binder& binder, const sql::Expr& e, ExprContext& ctx);
// Records aggregate `agg` over `input` in ctx.aggs and returns the reference
// to its output column (binder_function.cc).
ExprPtr AddAggregate(Binder& binder, LogicalAggregate agg, ExprPtr input, const Type& type,
                     const std::string& name, ExprContext& ctx);

// A function in FROM (binder_catalog_from.cc): generate_series, unnest,
// pg_partition_ancestors [WITH ORDINALITY], as a Values node; fills `rel`.
// `scope` is the FROM clause's scope (its `outer` is what arguments see).
LogicalOpPtr BindTableFunction(Binder& binder, const sql::TableRef& ref, const Scope* scope,
                               ScopeRelation* rel);
// json[b]_to_record[set] with a column definition list
// (binder_json_record.cc); the same contract.
bool IsJsonRecordFunction(const std::string& name);
LogicalOpPtr BindJsonRecordFunction(Binder& binder, const sql::TableRef& ref, const Scope* scope,
                                    ScopeRelation* rel);

}  // namespace forktail
