// Parameter templates: a prepared statement bound once, then executed with
// other parameter values without the binder.
//
// Why: a client that prepares its statements (pgbench -M prepared, JDBC,
// psycopg's prepared statements, our TPC-C driver) executes each one many
// times with other values, and binding it again every time was 14% of the
// server's CPU under TPC-C's statements (perf; PreBind, most of it Bind).
// So the first execution binds with BindOptions::tag_parameters, which marks
// every constant made of a parameter, and later executions copy that binding
// and put their own values into the marked constants (and into the
// INSERT rows' cells that hold them).
//
// When that is exact: the copy must be what binding the statement with the
// new values would give. The binder decides some things by a constant's
// value (it folds constant operands, compiles a LIKE pattern, reads a
// LIMIT, casts a constant to a column's type when that loses nothing), so a
// template is only made when both of these hold:
//   - the text puts each parameter where its value decides nothing at bind
//     time: an operand of a comparison or of + - * whose other operand is a
//     column, a BETWEEN bound of a column, a SET value, an INSERT VALUES
//     item; and nothing in the text is folded from the session or the clock
//     (no function other than the aggregates count, sum, min, max, avg, no
//     cast, no string or typed literal, no subquery, no view, no system
//     relation, no column DEFAULT filled in by an INSERT);
//   - the binding kept every constant it made of a parameter, unchanged,
//     of the parameter's type, as an operand of a comparison or an
//     arithmetic operator, a SET value or an INSERT cell (counted: a
//     constant folded away or copied elsewhere leaves the count short).
// A NULL value, or one that does not cast to its cell's column type, binds
// the statement again (its errors come from the binder, as before). A
// template holds for the schema version and the session time zone it was
// bound at; any DDL makes the next execution bind and template again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "olap/session/statement/point_statement.h"
#include "storage/value/timezone.h"

namespace forktail {

class ParameterTemplate {
 public:
  // The template of `pre`, bound from `statement` with tag_parameters, or
  // nullptr when it is not exact (above).
  static std::unique_ptr<ParameterTemplate> Make(const sql::Statement& statement,
                                                 const PreBoundStatement& pre,
                                                 const Catalog& schemas);

  // The statement bound for `values` ($1 first, each of its parameter's
  // type); nullopt when one is NULL or does not fit its INSERT column.
  std::optional<PreBoundStatement> Instantiate(const std::vector<Value>& values,
                                               const Catalog& schemas) const;

  uint64_t schema_version() const { return bound_.schema_version; }

 private:
  PreBoundStatement bound_;  // point_select unused
  std::vector<BoundStatement::ParameterCell> cells_;
};

// What the executions of one prepared statement share: its template, made
// at the first execution with the current schema version and time zone.
// Used on the session's thread only.
class PreparedBinding {
 public:
  // PreBind for `statement` with `options` (parameters set), from the
  // template when there is a fitting one. The template belongs to the first
  // statement bound here: another one (a query the statement holds) binds
  // as PreBind does.
  std::optional<PreBoundStatement> PreBind(const sql::Statement& statement,
                                           const BindOptions& options, const Catalog& schemas,
                                           const datetime::TimeZonePtr& zone);

  // The binding of the statement's locking form: a SELECT ... FOR UPDATE
  // runs with its table's key columns added to the select list, a statement
  // parsed again at each execution (session_locking.cc) from the same text
  // and the same key columns (which only DDL changes, and DDL changes the
  // schema version), so its template holds for each of them.
  PreparedBinding& LockingForm();

 private:
  const sql::Statement* statement_ = nullptr;  // null: the locking form's
  bool locking_form_ = false;
  std::unique_ptr<PreparedBinding> locking_;
  std::unique_ptr<ParameterTemplate> template_;
  datetime::TimeZonePtr zone_;  // the template's
  // The schema version at which the statement was found to have no
  // template (none: nothing refused yet).
  std::optional<uint64_t> refused_at_;
};

// Process-wide count of statements bound from a template (tests check that
// templates are used, and not where they must not be).
uint64_t ParameterTemplateExecutions();

}  // namespace forktail
