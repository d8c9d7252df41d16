#include "olap/session/statement/write_executor.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/execution/operator/physical_scan.h"
#include "olap/expression/expression_executor.h"
#include "olap/parser/ast.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/plan/planner/index_selection.h"
#include "olap/session/statement/point_statement.h"
#include "olap/session/statement/txn_sequences.h"

namespace forktail {
namespace {

std::atomic<uint64_t> g_key_lookups{0};

// A VALUES row of expressions that read no column (now(), casts the folder
// left): evaluated on one row of no columns, as the planner's Values does,
// without planning and scheduling a one-row query.
bool ColumnFree(const Expression& e) {
  if (e.kind == ExprKind::kColumnRef) return false;
  for (const ExprPtr& c : e.children) {
    if (c && !ColumnFree(*c)) return false;
  }
  return true;
}

std::optional<std::vector<Row>> EvaluateValues(const LogicalOp& plan) {
  if (plan.kind != LogicalOpKind::kValues || !plan.children.empty()) return std::nullopt;
  for (const std::vector<ExprPtr>& row : plan.rows) {
    if (row.size() != plan.columns.size()) return std::nullopt;
    for (const ExprPtr& e : row) {
      if (!ColumnFree(*e)) return std::nullopt;
    }
  }
  std::vector<Row> rows;
  DataChunk one;
  one.set_size(1);
  for (const std::vector<ExprPtr>& exprs : plan.rows) {
    Row row;
    for (size_t c = 0; c < exprs.size(); c++) {
      const Expression& e = *exprs[c];
      if (e.kind == ExprKind::kConstant) {
        row.push_back(e.constant);
        continue;
      }
      ExpressionExecutor executor(e);
      row.push_back(VectorValue(executor.Execute(one), 0));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

[[noreturn]] void NotSupported(const std::string& what, int position = 0) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
}

std::vector<Type> ColumnTypes(const TableSchema& schema) {
  std::vector<Type> types;
  for (const ColumnDef& c : schema.columns) types.push_back(c.type);
  return types;
}

// The RETURNING list evaluated on `rows` (table rows in column order): the
// statement's result columns and rows.
void Returning(const BoundStatement& bound, const std::vector<Type>& types,
               const std::vector<Row>& rows, StatementResult* result) {
  if (bound.returning.empty()) return;
  for (const LogicalColumn& c : bound.returning_columns)
    result->columns.push_back({c.name, c.type});
  std::vector<std::unique_ptr<ExpressionExecutor>> executors;
  for (const ExprPtr& e : bound.returning)
    executors.push_back(std::make_unique<ExpressionExecutor>(*e));
  for (size_t begin = 0; begin < rows.size(); begin += kVectorSize) {
    const size_t end = std::min(rows.size(), begin + kVectorSize);
    std::vector<Row> batch(rows.begin() + begin, rows.begin() + end);
    DataChunk chunk = ChunkOfRows(types, batch);
    std::vector<const Vector*> columns;
    for (auto& executor : executors) columns.push_back(&executor->Execute(chunk, chunk.rows()));
    for (uint32_t k = 0; k < batch.size(); k++) {
      Row out;
      for (const Vector* v : columns) out.push_back(VectorValue(*v, k));
      result->rows.push_back(std::move(out));
    }
  }
}

}  // namespace

std::string TableNameOf(const std::vector<std::string>& qualified, int position) {
  if (qualified.empty()) throw DbError(sqlstate::kSyntaxError, "missing table name", position);
  if (qualified.size() > 2) {
    throw DbError(sqlstate::kFeatureNotSupported, "cross-database references are not implemented",
                  position);
  }
  if (qualified.size() == 2 && qualified[0] != "public") {
    throw DbError("3F000", "schema \"" + qualified[0] + "\" does not exist", position);
  }
  return qualified.back();
}

uint64_t WriteExecutor::key_lookups() { return g_key_lookups.load(std::memory_order_relaxed); }

bool WriteExecutor::Handles(const sql::Statement& statement) {
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
    case sql::StatementKind::kCreateTable:
    case sql::StatementKind::kDropTable:
    case sql::StatementKind::kCreateIndex:
    case sql::StatementKind::kCreateView:
    case sql::StatementKind::kAlterTable:
    case sql::StatementKind::kTruncate:
    case sql::StatementKind::kVacuum:
    case sql::StatementKind::kCreateSequence:
    case sql::StatementKind::kAlterSequence:
    case sql::StatementKind::kComment:
      return true;
    default:
      return false;
  }
}

StatementResult WriteExecutor::Execute(const sql::Statement& statement,
                                       const BindOptions& options) {
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
      return ExecuteBound(statement, Bind(statement, *context_.catalog, options));
    case sql::StatementKind::kCreateTable:
      return CreateTable(statement, options);
    case sql::StatementKind::kDropTable:
      return Drop(statement);
    case sql::StatementKind::kCreateIndex:
      return CreateIndex(statement);
    case sql::StatementKind::kCreateView:
      return CreateView(statement);
    case sql::StatementKind::kAlterTable:
      return AlterTable(statement);
    case sql::StatementKind::kTruncate:
      return Truncate(statement);
    case sql::StatementKind::kVacuum:
      return Vacuum(statement);
    case sql::StatementKind::kCreateSequence:
      return CreateSequence(statement);
    case sql::StatementKind::kAlterSequence:
      return AlterSequence(statement);
    case sql::StatementKind::kComment:
      return Comment(statement);
    default:
      NotSupported("this statement in a write context", statement.position);
  }
}

// What foreign-key actions need of SQL: DEFAULT expressions and CHECKs.
class WriteExecutor::ActionHooks : public StatementHooks {
 public:
  explicit ActionHooks(const WriteExecutor& executor) : executor_(executor) {}
  Value ColumnDefault(const Table& table, ColumnId column) override {
    const ColumnDef& def = table.schema().column(column);
    if (!CallsSequenceFunctions(def.default_sql)) return EvaluateColumnDefault(def);
    // ON DELETE SET DEFAULT of a SERIAL column: nextval in the action's
    // transaction. The session's currval is not reached from here, so the
    // action draws with a state of its own (currval does not see it).
    SequenceSessionState session;
    TxnSequences sequences(executor_.txn_, *executor_.context_.catalog, &session);
    BindOptions options;
    options.sequences = &sequences;
    ExprPtr e =
        BindColumnDefault(table.schema(), column.value(), *executor_.context_.catalog, options);
    DataChunk one;  // no columns, one row
    one.set_size(1);
    ExpressionExecutor executor(*e);
    return VectorValue(executor.Execute(one, one.rows()), 0).CastTo(def.type);
  }
  void CheckUpdatedRow(const Table& table, const Row& row) override {
    executor_.EnforceChecks(table.schema().name, {row});
  }

 private:
  const WriteExecutor& executor_;
};

StatementResult WriteExecutor::ExecuteBound(const sql::Statement& statement, BoundStatement bound) {
  return RunBound(statement, bound, &bound);
}

StatementResult WriteExecutor::ExecuteKept(const sql::Statement& statement,
                                           const BoundStatement& bound) {
  return RunBound(statement, bound, nullptr);
}

StatementResult WriteExecutor::RunBound(const sql::Statement& statement,
                                        const BoundStatement& bound, BoundStatement* owned) {
  const bool insert = statement.kind == sql::StatementKind::kInsert;
  if (!insert && statement.kind != sql::StatementKind::kUpdate &&
      statement.kind != sql::StatementKind::kDelete) {
    NotSupported("this statement in a write context", statement.position);
  }
  ActionHooks hooks(*this);
  Transaction::StatementScope scope(txn_, &hooks);
  StatementResult result =
      insert ? Insert(bound, owned)
             : UpdateOrDelete(statement, owned ? std::move(*owned) : CopyBound(bound));
  scope.End();  // foreign keys
  return result;
}

std::optional<WriteExecutor::CheckViolation> WriteExecutor::FindCheckViolation(
    const TableSchema& schema, const std::vector<ExprPtr>& checks, const std::vector<Row>& rows) {
  if (checks.empty() || rows.empty()) return std::nullopt;
  const std::vector<Type> types = ColumnTypes(schema);
  for (size_t first = 0; first < rows.size(); first += kVectorSize) {
    std::vector<Row> batch(
        rows.begin() + static_cast<std::ptrdiff_t>(first),
        rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), first + kVectorSize)));
    // Cast as the table will store them (the check sees the stored values).
    for (Row& row : batch) {
      for (size_t c = 0; c < row.size(); c++) row[c] = row[c].CastTo(types[c]);
    }
    DataChunk chunk = ChunkOfRows(types, batch);
    for (size_t k = 0; k < checks.size(); k++) {
      ExpressionExecutor executor(*checks[k]);
      const Vector& ok = executor.Execute(chunk, chunk.rows());
      for (uint32_t i = 0; i < batch.size(); i++) {
        Value v = VectorValue(ok, i);
        if (v.is_null() || v.GetBool()) continue;  // NULL passes, as in PostgreSQL
        return CheckViolation{k, std::move(batch[i])};
      }
    }
  }
  return std::nullopt;
}

void WriteExecutor::EnforceChecks(const std::string& table, const std::vector<Row>& rows) const {
  const TableSchema& schema = txn_.GetTable(table).schema();
  if (schema.checks.empty() || rows.empty()) return;
  std::optional<CheckViolation> violation = FindCheckViolation(schema, BindChecks(schema), rows);
  if (!violation) return;
  std::string shown;
  for (const Value& x : violation->row) {
    shown += (shown.empty() ? "" : ", ") + (x.is_null() ? std::string("null") : x.ToString());
  }
  throw DbError("23514", "new row for relation \"" + table + "\" violates check constraint \"" +
                             schema.checks[violation->check].name +
                             "\"\nDETAIL:  Failing row contains (" + shown + ").")
      .WithObject(table, schema.checks[violation->check].name);
}

StatementResult WriteExecutor::Insert(const BoundStatement& bound, BoundStatement* owned) {
  std::vector<Row> rows;
  if (!bound.plan) {
    rows = owned ? std::move(owned->insert_rows) : bound.insert_rows;
  } else if (std::optional<std::vector<Row>> values = EvaluateValues(*bound.plan)) {
    rows = std::move(*values);
  } else {
    rows = RunLogicalPlan(owned ? std::move(owned->plan) : ClonePlan(*bound.plan), context_,
                          bound.sequence_use);
  }
  EnforceChecks(bound.table_name, rows);
  StatementResult result;
  if (bound.on_conflict == BoundStatement::OnConflictAction::kNone && bound.returning.empty()) {
    for (const Row& row : rows) txn_.Insert(bound.table_name, row);
    result.command_tag = "INSERT 0 " + std::to_string(rows.size());
    return result;
  }
  const std::vector<Type> types = ColumnTypes(txn_.GetTable(bound.table_name).schema());
  if (bound.on_conflict != BoundStatement::OnConflictAction::kNone) {
    rows = InsertOnConflict(bound, types, std::move(rows));
  } else {
    for (const Row& row : rows) txn_.Insert(bound.table_name, row);
  }
  result.command_tag = "INSERT 0 " + std::to_string(rows.size());
  Returning(bound, types, rows, &result);
  return result;
}

std::optional<TupleId> WriteExecutor::FindConflict(const BoundStatement& bound,
                                                   const Row& row) const {
  const Table& table = txn_.GetTable(bound.table_name);
  const TableSchema& schema = table.schema();
  std::vector<int> arbiters = bound.conflict_arbiters;
  if (arbiters.empty()) {  // every unique index
    if (!schema.primary_key.empty()) arbiters.push_back(IndexRange::kPrimaryKey);
    for (size_t i = 0; i < schema.indexes.size(); i++) {
      if (schema.indexes[i].unique) arbiters.push_back(static_cast<int>(i));
    }
  }
  for (int arbiter : arbiters) {
    IndexRange range;
    range.index = arbiter;
    const std::vector<ColumnId>& columns =
        arbiter == IndexRange::kPrimaryKey ? schema.primary_key : schema.indexes[arbiter].columns;
    for (ColumnId c : columns) {
      // Cast as the insert will (its errors are the insert's errors).
      Value v = row[c.value()].CastTo(schema.column(c).type);
      if (v.is_null()) break;  // NULLs never conflict
      range.equal.push_back(std::move(v));
    }
    if (range.equal.size() != columns.size()) continue;
    // Unique: at most one row, so the limit of one is never exceeded.
    std::optional<std::vector<TupleId>> found = table.ProbeIndex(range, 1);
    if (found && !found->empty()) return found->front();
  }
  return std::nullopt;
}

std::vector<Row> WriteExecutor::InsertOnConflict(const BoundStatement& bound,
                                                 const std::vector<Type>& types,
                                                 std::vector<Row> rows) {
  const bool update = bound.on_conflict == BoundStatement::OnConflictAction::kUpdate;
  // DO UPDATE evaluates over [existing row, proposed row] (EXCLUDED).
  std::vector<Type> pair_types = types;
  pair_types.insert(pair_types.end(), types.begin(), types.end());
  std::unique_ptr<ExpressionExecutor> where;
  if (bound.conflict_where) where = std::make_unique<ExpressionExecutor>(*bound.conflict_where);
  std::vector<std::unique_ptr<ExpressionExecutor>> sets;
  for (const auto& [column, expr] : bound.conflict_set) {
    sets.push_back(std::make_unique<ExpressionExecutor>(*expr));
  }
  std::vector<uint32_t> sel(kVectorSize);
  std::set<TupleId> touched;  // rows this statement inserted or updated
  std::vector<Row> written;
  const Table& table = txn_.GetTable(bound.table_name);
  for (Row& row : rows) {
    // The proposed row meets NOT NULL before its conflict is looked for, as
    // PostgreSQL checks it (and CHECK, above) before the arbiter indexes.
    (void)table.CastRow(row);
    std::optional<TupleId> existing = FindConflict(bound, row);
    if (!existing) {
      touched.insert(txn_.Insert(bound.table_name, row));
      written.push_back(std::move(row));
      continue;
    }
    if (!update) continue;  // DO NOTHING
    if (touched.count(*existing)) {
      throw DbError(sqlstate::kCardinalityViolation,
                    "ON CONFLICT DO UPDATE command cannot affect row a second time")
          .WithHint(
              "Ensure that no rows proposed for insertion within the same command have duplicate "
              "constrained values.");
    }
    std::optional<Row> old = txn_.Read(bound.table_name, *existing);
    if (!old) throw DbError(sqlstate::kInternalError, "a conflicting row vanished");
    Row pair = *old;
    pair.insert(pair.end(), row.begin(), row.end());
    DataChunk chunk = ChunkOfRows(pair_types, {pair});
    if (where && where->Select(chunk, chunk.rows(), sel.data()) == 0) continue;
    Table::ColumnUpdates updates;
    Row now = std::move(*old);
    for (size_t s = 0; s < sets.size(); s++) {
      Value v = VectorValue(sets[s]->Execute(chunk, chunk.rows()), 0);
      const uint32_t column = bound.conflict_set[s].first;
      updates.emplace_back(ColumnId(static_cast<uint16_t>(column)), v);
      now[column] = std::move(v);
    }
    EnforceChecks(bound.table_name, {now});
    touched.insert(txn_.Update(bound.table_name, *existing, updates));
    written.push_back(std::move(now));
  }
  return written;
}

StatementResult WriteExecutor::UpdateOrDeleteJoined(bool is_update, BoundStatement bound) {
  const TableSchema& schema = txn_.GetTable(bound.table_name).schema();
  const size_t key_size = schema.primary_key.size();
  std::vector<Row> matches = RunLogicalPlan(std::move(bound.plan), context_, bound.sequence_use);
  // A target row that several rows of the join match is changed once, with
  // the first match's values (PostgreSQL uses one of them).
  std::set<TupleId> done;
  uint64_t count = 0;
  std::vector<Row> returned;  // RETURNING: each target's row as written (DELETE: as it was)
  for (const Row& match : matches) {
    Transaction::Key key(match.begin(), match.begin() + key_size);
    std::optional<TupleId> tid = txn_.Find(bound.table_name, key);
    if (!tid || done.count(*tid)) continue;
    if (!is_update && !bound.returning.empty())
      returned.push_back(*txn_.Read(bound.table_name, *tid));
    if (is_update) {
      Table::ColumnUpdates updates;
      for (const auto& [column, value] : bound.set) {
        updates.emplace_back(ColumnId(static_cast<uint16_t>(column)), match[value->column]);
      }
      if (!txn_.GetTable(bound.table_name).schema().checks.empty()) {
        Row after = *txn_.Read(bound.table_name, *tid);
        for (const auto& [column, value] : updates) after[column.value()] = value;
        EnforceChecks(bound.table_name, {after});
      }
      const TupleId now = txn_.Update(bound.table_name, *tid, updates);
      done.insert(now);
      if (!bound.returning.empty()) returned.push_back(*txn_.Read(bound.table_name, now));
    } else {
      txn_.Delete(bound.table_name, *tid);
      done.insert(*tid);
    }
    count++;
  }
  StatementResult result;
  result.command_tag = (is_update ? "UPDATE " : "DELETE ") + std::to_string(count);
  Returning(bound, ColumnTypes(schema), returned, &result);
  return result;
}

StatementResult WriteExecutor::UpdateOrDelete(const sql::Statement& statement,
                                              BoundStatement bound) {
  const bool is_update = statement.kind == sql::StatementKind::kUpdate;
  if (bound.plan) return UpdateOrDeleteJoined(is_update, std::move(bound));
  const Table& table = txn_.GetTable(bound.table_name);
  const std::vector<Type> types = ColumnTypes(table.schema());

  std::unique_ptr<ExpressionExecutor> where;
  if (bound.where) where = std::make_unique<ExpressionExecutor>(*bound.where);
  std::vector<std::unique_ptr<ExpressionExecutor>> sets;
  for (auto& [column, expr] : bound.set)
    sets.push_back(std::make_unique<ExpressionExecutor>(*expr));

  // Phase 1: find the rows and compute their new values; nothing changes yet.
  std::vector<TupleId> targets;
  std::vector<Table::ColumnUpdates> updates;
  std::vector<Row> returned;  // RETURNING: each target's row as written (DELETE: as it was)
  std::vector<TupleId> batch_tids;
  std::vector<Row> batch_rows;
  std::vector<uint32_t> sel(kVectorSize);
  auto flush = [&] {
    if (batch_rows.empty()) return;
    if (context_.cancel != nullptr && context_.cancel->load()) {
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
    DataChunk chunk = ChunkOfRows(types, batch_rows);
    uint32_t count = chunk.count();
    Rows rows = chunk.rows();
    if (where) {
      count = where->Select(chunk, chunk.rows(), sel.data());
      rows = Rows{sel.data(), count};
    }
    size_t first = updates.size();
    for (uint32_t k = 0; k < count; k++) targets.push_back(batch_tids[rows[k]]);
    if (!bound.returning.empty()) {
      for (uint32_t k = 0; k < count; k++) returned.push_back(batch_rows[rows[k]]);
    }
    if (is_update) {
      updates.resize(first + count);
      for (size_t s = 0; s < sets.size(); s++) {
        const Vector& v = sets[s]->Execute(chunk, rows);
        ColumnId column(static_cast<uint16_t>(bound.set[s].first));
        for (uint32_t k = 0; k < count; k++) {
          updates[first + k].emplace_back(column, VectorValue(v, rows[k]));
          if (!bound.returning.empty())
            returned[first + k][column.value()] = VectorValue(v, rows[k]);
        }
      }
    }
    batch_tids.clear();
    batch_rows.clear();
  };
  // The rows that may match: the one the primary key names when the WHERE
  // fixes the whole key, otherwise every live row.
  bool looked_up = false;
  if (std::optional<std::vector<Value>> key = PointKey(bound.where.get(), table.schema())) {
    std::optional<TupleId> tid;
    try {
      tid = txn_.Find(bound.table_name, *key);
      looked_up = true;
    } catch (const DbError&) {
      // The constant does not fit the key type (an out-of-range integer):
      // let the scan path answer as it always has.
    }
    if (looked_up) {
      g_key_lookups.fetch_add(1, std::memory_order_relaxed);
      if (tid) {
        std::optional<Row> row = txn_.Read(bound.table_name, *tid);
        if (row) {
          batch_tids.push_back(*tid);
          batch_rows.push_back(std::move(*row));
        }
      }
    }
  }
  if (!looked_up && bound.where) {
    // A secondary index that narrows the search (index_selection.h), unless
    // it finds so many rows that the scan is cheaper.
    std::optional<IndexChoice> index =
        ChooseIndex({bound.where.get()}, table.schema(), [](const Expression& ref) {
          return std::optional(ColumnId(static_cast<uint16_t>(ref.column)));
        });
    if (index) {
      size_t limit =
          std::max<size_t>(TableScanOperator::kMinIndexProbeRows,
                           table.live_row_count() / TableScanOperator::kIndexProbeFraction);
      if (std::optional<std::vector<TupleId>> tids = table.ProbeIndex(index->range, limit)) {
        looked_up = true;
        std::sort(tids->begin(), tids->end());
        for (TupleId tid : *tids) {
          std::optional<Row> row = txn_.Read(bound.table_name, tid);
          if (!row) continue;
          batch_tids.push_back(tid);
          batch_rows.push_back(std::move(*row));
          if (batch_rows.size() == kVectorSize) flush();
        }
      }
    }
  }
  if (!looked_up) {
    txn_.Scan(bound.table_name, [&](TupleId tid, const Row& row) {
      batch_tids.push_back(tid);
      batch_rows.push_back(row);
      if (batch_rows.size() == kVectorSize) flush();
      return true;
    });
  }
  flush();

  // CHECK constraints on the rows as they will be.
  if (is_update && !table.schema().checks.empty()) {
    std::vector<Row> after;
    for (size_t i = 0; i < targets.size(); i++) {
      Row row = *txn_.Read(bound.table_name, targets[i]);
      for (const auto& [column, value] : updates[i]) row[column.value()] = value;
      after.push_back(std::move(row));
    }
    EnforceChecks(bound.table_name, after);
  }

  // Phase 2: apply.
  for (size_t i = 0; i < targets.size(); i++) {
    if (is_update) {
      txn_.Update(bound.table_name, targets[i], updates[i]);
    } else {
      txn_.Delete(bound.table_name, targets[i]);
    }
  }
  StatementResult result;
  result.command_tag = (is_update ? "UPDATE " : "DELETE ") + std::to_string(targets.size());
  Returning(bound, types, returned, &result);
  return result;
}

}  // namespace forktail
