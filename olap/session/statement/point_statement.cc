#include "olap/session/statement/point_statement.h"

#include <atomic>
#include <map>
#include <utility>

#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/expression/expression_executor.h"
#include "olap/parser/ast.h"
#include "olap/plan/logical_util.h"
#include "olap/plan/planner/index_selection.h"

namespace forktail {
namespace {

std::atomic<uint64_t> g_prebound_executions{0};

// Whether a constant of type `value` equal (in the comparison) to a column of
// type `column` names exactly one key value, found by an index lookup after a
// cast to the column type: integers with integers, VARCHAR/TEXT with
// VARCHAR/TEXT. CHAR (blank-padded comparison), DECIMAL and DOUBLE keys keep
// the scan.
bool LookupCompatible(const Type& column, const Type& value) {
  if (column.IsInteger()) return value.IsInteger();
  auto plain_string = [](const Type& t) {
    return t.id == TypeId::kVarchar || t.id == TypeId::kText;
  };
  return plain_string(column) && plain_string(value);
}

// A clone of `e` with its column ids replaced by table column positions;
// nullptr if it names a column `positions` does not map.
ExprPtr ToPositions(const Expression& e, const std::map<uint32_t, uint32_t>& positions) {
  for (uint32_t id : ColumnsOf(e)) {
    if (!positions.count(id)) return nullptr;
  }
  ExprPtr out = CloneExpr(e);
  RenameColumns(out.get(), positions);
  return out;
}

}  // namespace

uint64_t PreBoundExecutions() { return g_prebound_executions.load(std::memory_order_relaxed); }
void CountPreBoundExecution() { g_prebound_executions.fetch_add(1, std::memory_order_relaxed); }

namespace {

// The leading primary-key columns `where` fixes with `column = constant`
// (see PointKey), in key order, up to the first one it does not fix.
std::vector<Value> FixedKeyPrefix(const Expression* where, const TableSchema& schema) {
  if (where == nullptr || schema.primary_key.empty()) return {};
  std::vector<const Expression*> conjuncts;
  SplitConjuncts(*where, &conjuncts);
  std::vector<std::optional<Value>> key(schema.primary_key.size());
  for (const Expression* c : conjuncts) {
    if (c->kind != ExprKind::kCompare || c->compare != CompareOp::kEq || c->children.size() != 2)
      continue;
    for (int side = 0; side < 2; side++) {
      const Expression* column = IndexedColumnSide(*c->children[side]);
      const Expression& other = *c->children[1 - side];
      if (column == nullptr || other.kind != ExprKind::kConstant) continue;
      for (size_t k = 0; k < schema.primary_key.size(); k++) {
        if (schema.primary_key[k].value() != column->column || key[k]) continue;
        const Type& column_type = schema.columns[column->column].type;
        if (!LookupCompatible(column_type, other.type)) continue;
        key[k] = other.constant;
      }
    }
  }
  std::vector<Value> values;
  for (std::optional<Value>& v : key) {
    if (!v) break;
    values.push_back(std::move(*v));
  }
  return values;
}

}  // namespace

std::optional<std::vector<Value>> PointKey(const Expression* where, const TableSchema& schema) {
  std::vector<Value> key = FixedKeyPrefix(where, schema);
  if (key.empty() || key.size() != schema.primary_key.size()) return std::nullopt;
  return key;
}

std::optional<std::vector<Value>> KeyPrefixRead(const LogicalOp& plan, const Catalog& catalog,
                                                TableId* table) {
  // Down a chain of one-input operators to the Get.
  std::vector<const LogicalOp*> above;
  const LogicalOp* op = &plan;
  while (op->kind != LogicalOpKind::kGet) {
    if (op->children.size() != 1 || op->subplan) return std::nullopt;
    above.push_back(op);
    op = op->children[0].get();
  }
  if (!op->children.empty() || op->subplan || !op->runtime_filters.empty()) return std::nullopt;
  const Table* found = nullptr;
  try {
    found = &catalog.GetTable(op->table_id);
  } catch (const DbError&) {
    return std::nullopt;  // not a user table
  }
  const TableSchema& schema = found->schema();
  std::map<uint32_t, uint32_t> positions;  // Get output id -> table column position
  for (size_t i = 0; i < op->columns.size() && i < op->table_columns.size(); i++) {
    if (op->table_columns[i] >= schema.columns.size()) return std::nullopt;
    positions[op->columns[i].id] = op->table_columns[i];
  }
  // The Get's conditions and those of the Filters right above it: every row
  // the operators above see passes them. (A Filter above a Limit, or an
  // aggregate, does not restrict which rows decide the result.)
  std::vector<const Expression*> conditions;
  for (const ExprPtr& c : op->conditions) conditions.push_back(c.get());
  for (auto it = above.rbegin(); it != above.rend() && (*it)->kind == LogicalOpKind::kFilter;
       ++it) {
    for (const ExprPtr& c : (*it)->conditions) conditions.push_back(c.get());
  }
  std::vector<ExprPtr> conjuncts;
  for (const Expression* c : conditions) {
    if (ExprPtr e = ToPositions(*c, positions)) conjuncts.push_back(std::move(e));
  }
  if (conjuncts.empty()) return std::nullopt;
  ExprPtr where = MakeConjunction(std::move(conjuncts));
  std::vector<Value> prefix = FixedKeyPrefix(where.get(), schema);
  if (prefix.empty()) return std::nullopt;
  *table = found->id();
  return prefix;
}

std::unique_ptr<PointSelect> PointSelect::Make(const LogicalOp& plan, const Catalog& catalog) {
  const LogicalOp* project = nullptr;
  const LogicalOp* op = &plan;
  if (op->kind == LogicalOpKind::kProject) {
    project = op;
    if (op->children.size() != 1) return nullptr;
    op = op->children[0].get();
  }
  std::vector<const Expression*> conditions;
  while (op->kind == LogicalOpKind::kFilter && op->children.size() == 1) {
    for (const ExprPtr& c : op->conditions) conditions.push_back(c.get());
    op = op->children[0].get();
  }
  if (op->kind != LogicalOpKind::kGet || !op->children.empty() || !op->runtime_filters.empty() ||
      op->table_columns.size() != op->columns.size()) {
    return nullptr;
  }
  for (const ExprPtr& c : op->conditions) conditions.push_back(c.get());
  if (conditions.empty()) return nullptr;
  const Table* table = nullptr;
  try {
    table = &catalog.GetTable(op->table_id);
  } catch (const DbError&) {
    return nullptr;  // not a user table
  }
  if (table->schema().primary_key.empty()) return nullptr;
  const TableSchema& schema = table->schema();
  std::map<uint32_t, uint32_t> positions;  // Get output id -> table column position
  for (size_t i = 0; i < op->columns.size(); i++) {
    if (op->table_columns[i] >= schema.columns.size()) return nullptr;
    positions[op->columns[i].id] = op->table_columns[i];
  }
  auto point = std::make_unique<PointSelect>();
  std::vector<ExprPtr> conjuncts;
  for (const Expression* c : conditions) {
    ExprPtr e = ToPositions(*c, positions);
    if (!e) return nullptr;
    conjuncts.push_back(std::move(e));
  }
  point->where_ = MakeConjunction(std::move(conjuncts));
  std::optional<std::vector<Value>> key = PointKey(point->where_.get(), schema);
  if (!key) return nullptr;
  point->key_ = std::move(*key);
  if (project != nullptr) {
    if (project->expressions.size() != project->columns.size()) return nullptr;
    for (const ExprPtr& e : project->expressions) {
      ExprPtr out = ToPositions(*e, positions);
      if (!out) return nullptr;
      point->outputs_.push_back(std::move(out));
    }
  } else {
    for (size_t i = 0; i < op->columns.size(); i++) {
      auto ref = std::make_unique<Expression>();
      ref->kind = ExprKind::kColumnRef;
      ref->type = op->columns[i].type;
      ref->column = op->table_columns[i];
      point->outputs_.push_back(std::move(ref));
    }
  }
  for (const LogicalColumn& c : plan.columns) point->columns_.push_back({c.name, c.type});
  if (point->columns_.size() != point->outputs_.size()) return nullptr;
  point->table_ = schema.name;
  for (const ColumnDef& c : schema.columns) point->row_types_.push_back(c.type);
  return point;
}

std::optional<StatementResult> PointSelect::Execute(const Transaction& txn) const {
  std::optional<std::optional<Row>> row = FindRow(txn);
  if (!row) return std::nullopt;
  return Answer(std::move(*row));
}

std::optional<std::optional<Row>> PointSelect::FindRow(const Transaction& txn) const {
  std::optional<TupleId> tid;
  try {
    tid = txn.Find(table_, key_);
  } catch (const DbError&) {
    return std::nullopt;  // the constant does not fit the key type
  }
  std::optional<Row> row;
  if (tid) row = txn.Read(table_, *tid);
  return row;
}

StatementResult PointSelect::Answer(std::optional<Row> row) const {
  StatementResult result;
  result.columns = columns_;
  if (row) {
    std::vector<Row> rows;
    rows.push_back(std::move(*row));
    DataChunk chunk = ChunkOfRows(row_types_, rows);
    uint32_t sel[1] = {0};
    if (where_ == nullptr || ExpressionExecutor(*where_).Select(chunk, chunk.rows(), sel) == 1) {
      Rows one{sel, 1};
      Row out;
      out.reserve(outputs_.size());
      for (const ExprPtr& e : outputs_) {
        ExpressionExecutor executor(*e);
        out.push_back(VectorValue(executor.Execute(chunk, one), 0));
      }
      result.rows.push_back(std::move(out));
    }
  }
  result.command_tag = "SELECT " + std::to_string(result.rows.size());
  return result;
}

std::unique_ptr<PointSelect> PointSelect::ForKey(std::vector<Value> key) const {
  auto copy = std::make_unique<PointSelect>();
  copy->table_ = table_;
  copy->key_ = std::move(key);
  copy->row_types_ = row_types_;
  for (const ExprPtr& e : outputs_) copy->outputs_.push_back(CloneExpr(*e));
  copy->columns_ = columns_;
  return copy;
}

std::optional<PreBoundStatement> PreBind(const sql::Statement& statement,
                                         const BindOptions& options, const Catalog& schemas) {
  switch (statement.kind) {
    case sql::StatementKind::kSelect:
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
      break;
    default:
      return std::nullopt;
  }
  PreBoundStatement out;
  out.schema_version = schemas.schema_version();
  try {
    out.bound = Bind(statement, schemas, options);
  } catch (const DbError&) {
    return std::nullopt;
  }
  if (statement.kind == sql::StatementKind::kInsert && out.bound.plan &&
      out.bound.plan->kind != LogicalOpKind::kValues) {
    // INSERT ... SELECT: its source may read system catalog views, whose
    // rows the binder takes from the catalog it binds against (the copy has
    // no statistics); bind it in the transaction as before.
    return std::nullopt;
  }
  if (statement.kind == sql::StatementKind::kSelect) {
    if (out.bound.kind != BoundStatementKind::kQuery || !out.bound.plan) return std::nullopt;
    out.point_select = PointSelect::Make(*out.bound.plan, schemas);
  }
  return out;
}

BoundStatement CopyBound(const BoundStatement& bound) {
  BoundStatement copy;
  copy.kind = bound.kind;
  if (bound.plan) copy.plan = ClonePlan(*bound.plan);
  copy.table_id = bound.table_id;
  copy.table_name = bound.table_name;
  copy.insert_rows = bound.insert_rows;
  if (bound.where) copy.where = CloneExpr(*bound.where);
  for (const auto& [column, value] : bound.set) copy.set.emplace_back(column, CloneExpr(*value));
  for (const ExprPtr& e : bound.returning) copy.returning.push_back(CloneExpr(*e));
  copy.returning_columns = bound.returning_columns;
  copy.on_conflict = bound.on_conflict;
  copy.conflict_arbiters = bound.conflict_arbiters;
  copy.sequence_use = bound.sequence_use;
  for (const auto& [column, value] : bound.conflict_set) {
    copy.conflict_set.emplace_back(column, CloneExpr(*value));
  }
  if (bound.conflict_where) copy.conflict_where = CloneExpr(*bound.conflict_where);
  copy.schema = bound.schema;
  copy.if_not_exists = bound.if_not_exists;
  copy.parameter_types = bound.parameter_types;
  return copy;
}

}  // namespace forktail
