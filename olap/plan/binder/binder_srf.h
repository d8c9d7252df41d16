// Set-returning functions in the select list (PostgreSQL 10+ semantics):
//
//   SELECT t.id, generate_series(1, t.n), unnest(t.arr) FROM t
//
// Every SRF of one select list (and its ORDER BY) runs in lockstep per input
// row: the row repeats as often as the longest SRF returns rows, shorter
// ones are padded with NULL, and a row whose SRFs all return nothing yields
// no row. The calls are bound where the select list meets them (their
// arguments over the grouped / windowed scope, like any select expression)
// into one zipped kTableFunction node ("ROWS FROM" of the calls,
// table_function.h), joined after GROUP BY / HAVING / windows and before
// DISTINCT / ORDER BY / LIMIT as a lateral item (binder_lateral.h: an Apply
// when the arguments read the row, a cross join of constants otherwise).
// The call itself binds to a reference to its value column.
//
// Supported: generate_series(int, int [, int]), unnest(array),
// jsonb_array_elements[_text](jsonb), jsonb_object_keys(jsonb), and
// information_schema._pg_expandarray(array) returning a record (x, n): the
// element and its 1-based index (pgJDBC's getPrimaryKeys). A record result
// is expanded into one column per field: `(f(...)).x` reads field x, and a
// bare record in a select list becomes the columns "name.x" and "name.n",
// which `(name).x` resolves to from an enclosing query (so a subquery may
// pass the record through). Identical calls share one evaluation (their
// lockstep rows are the same).
//
// Errors as PostgreSQL 15's (0A000 with the call's position): an SRF in
// WHERE, JOIN conditions, HAVING, VALUES, ... ("set-returning functions are
// not allowed in WHERE"), in an aggregate's arguments ("aggregate function
// calls cannot contain set-returning function calls") or a window call's.
// Not supported (0A000): SRFs in GROUP BY, nested SRFs, SRFs in a
// correlated scalar subquery that aggregates.
#pragma once

#include <string>
#include <vector>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {

struct SrfCall {
  std::string name;  // generate_series, unnest, _pg_expandarray
  std::vector<ExprPtr> args;
  std::vector<LogicalColumn> columns;  // value; _pg_expandarray: x, n
};

struct SrfState {
  std::vector<SrfCall> calls;
  bool binding = false;  // binding an SRF's arguments (nesting)
};

// jsonb_array_elements[_text] and jsonb_object_keys: one column each
// (jsonb_each[_text], a record, only in FROM: binder_catalog_from.cc).
bool IsJsonbSetFunction(const std::string& name);
// Whether `e` calls one of the set-returning functions above.
bool IsSetReturningCall(const sql::Expr& e);
// Whether `e` calls a record-returning one (_pg_expandarray).
bool IsRecordSrfCall(const sql::Expr& e);

// Binds the call (ctx.srfs must allow it, else PostgreSQL's error) and
// returns a reference to its value column, or to field `field` if not null.
ExprPtr BindSrfCall(Binder& binder, const sql::Expr& e, ExprContext& ctx, const std::string* field);

// A record SRF as a select item: its field columns (named after the field).
std::vector<LogicalColumn> BindRecordSrf(Binder& binder, const sql::Expr& e, ExprContext& ctx);

// (expr).field: a field of a record SRF call, or of a record column
// ("name.field", see above); else PostgreSQL's errors.
ExprPtr BindFieldSelect(Binder& binder, const sql::Expr& e, ExprContext& ctx);

// Joins the zipped calls of `st` onto `plan` (see above).
LogicalOpPtr JoinSrfs(Binder& binder, LogicalOpPtr plan, SrfState* st);

}  // namespace forktail
