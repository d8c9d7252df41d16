#include "olap/engine/write_executor.h"

#include <atomic>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "olap/data_chunk.h"
#include "olap/expression_executor.h"
#include "olap/physical_chunk_block.h"
#include "olap/sql/ast.h"

namespace forktail {
namespace {

// Row i of an owned vector := v (v already of the vector's type).
void SetVectorValue(Vector& vec, uint32_t i, const Value& v) {
  if (v.is_null()) {
    vec.SetNull(i, true);
    return;
  }
  switch (vec.physical()) {
    case PhysicalType::kBool:
      vec.mutable_data<uint8_t>()[i] = v.GetBool() ? 1 : 0;
      return;
    case PhysicalType::kInt16:
      vec.mutable_data<int16_t>()[i] = static_cast<int16_t>(v.GetInt());
      return;
    case PhysicalType::kInt32:
      vec.mutable_data<int32_t>()[i] = static_cast<int32_t>(v.GetInt());
      return;
    case PhysicalType::kInt64:
      vec.mutable_data<int64_t>()[i] = v.GetInt();
      return;
    case PhysicalType::kDouble:
      vec.mutable_data<double>()[i] = v.GetDouble();
      return;
    case PhysicalType::kString:
      vec.mutable_data<std::string_view>()[i] = vec.arena()->Add(v.GetString());
      return;
  }
}

DataChunk ChunkOf(const std::vector<Type>& types, const std::vector<Row>& rows) {
  DataChunk chunk(types);
  for (size_t c = 0; c < types.size(); c++) {
    Vector& vec = chunk.column(c);
    for (size_t r = 0; r < rows.size(); r++)
      SetVectorValue(vec, static_cast<uint32_t>(r), rows[r][c]);
  }
  chunk.set_size(static_cast<uint32_t>(rows.size()));
  return chunk;
}

std::atomic<uint64_t> g_key_lookups{0};

// The column a point-key comparison side names: a column reference, possibly
// widened by a cast between integer types (int4 column compared as int8).
const Expression* KeyColumnSide(const Expression& e) {
  if (e.kind == ExprKind::kColumnRef) return &e;
  if (e.kind == ExprKind::kCast && e.type.IsInteger() && e.children.size() == 1 &&
      e.children[0]->kind == ExprKind::kColumnRef && e.children[0]->type.IsInteger()) {
    return e.children[0].get();
  }
  return nullptr;
}

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

// The conjuncts of a WHERE (nested ANDs flattened).
void Conjuncts(const Expression& e, std::vector<const Expression*>& out) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& c : e.children) Conjuncts(*c, out);
    return;
  }
  out.push_back(&e);
}

// If `where` is a conjunction that fixes every primary-key column with
// `column = constant` (a parameter is bound as a constant), the key values in
// key order. The full WHERE is still evaluated on the row the lookup finds,
// so the other conjuncts (and the comparisons' exact semantics) decide; the
// lookup only has to find every row that could satisfy it, which it does
// because the key is unique and each key column equals its constant.
std::optional<std::vector<Value>> PointKey(const Expression* where, const TableSchema& schema) {
  if (where == nullptr || schema.primary_key.empty()) return std::nullopt;
  std::vector<const Expression*> conjuncts;
  Conjuncts(*where, conjuncts);
  std::vector<std::optional<Value>> key(schema.primary_key.size());
  for (const Expression* c : conjuncts) {
    if (c->kind != ExprKind::kCompare || c->compare != CompareOp::kEq || c->children.size() != 2)
      continue;
    for (int side = 0; side < 2; side++) {
      const Expression* column = KeyColumnSide(*c->children[side]);
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
    if (!v) return std::nullopt;
    values.push_back(std::move(*v));
  }
  return values;
}

[[noreturn]] void NotSupported(const std::string& what, int position = 0) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
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
    case sql::StatementKind::kAlterTable:
    case sql::StatementKind::kTruncate:
    case sql::StatementKind::kVacuum:
      return true;
    default:
      return false;
  }
}

StatementResult WriteExecutor::Execute(const sql::Statement& statement,
                                       const BindOptions& options) {
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
      return Insert(statement, options);
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
      return UpdateOrDelete(statement, options);
    case sql::StatementKind::kCreateTable:
      return CreateTable(statement, options);
    case sql::StatementKind::kDropTable:
      return Drop(statement);
    case sql::StatementKind::kCreateIndex:
      return CreateIndex(statement);
    case sql::StatementKind::kAlterTable:
      return AlterTable(statement);
    case sql::StatementKind::kTruncate:
      return Truncate(statement);
    case sql::StatementKind::kVacuum:
      return Vacuum(statement);
    default:
      NotSupported("this statement in a write context", statement.position);
  }
}

StatementResult WriteExecutor::Insert(const sql::Statement& statement, const BindOptions& options) {
  if (!statement.insert->returning.empty()) {
    NotSupported("INSERT ... RETURNING", statement.insert->returning[0].position);
  }
  BoundStatement bound = Bind(statement, *context_.catalog, options);
  std::vector<Row> rows =
      bound.plan ? RunLogicalPlan(std::move(bound.plan), context_) : std::move(bound.insert_rows);
  for (const Row& row : rows) txn_.Insert(bound.table_name, row);
  StatementResult result;
  result.command_tag = "INSERT 0 " + std::to_string(rows.size());
  return result;
}

StatementResult WriteExecutor::UpdateOrDelete(const sql::Statement& statement,
                                              const BindOptions& options) {
  const bool is_update = statement.kind == sql::StatementKind::kUpdate;
  if (is_update ? !statement.update->returning.empty() : !statement.del->returning.empty()) {
    NotSupported(is_update ? "UPDATE ... RETURNING" : "DELETE ... RETURNING", statement.position);
  }
  BoundStatement bound = Bind(statement, *context_.catalog, options);
  const Table& table = txn_.GetTable(bound.table_name);
  std::vector<Type> types;
  for (const ColumnDef& c : table.schema().columns) types.push_back(c.type);

  std::unique_ptr<ExpressionExecutor> where;
  if (bound.where) where = std::make_unique<ExpressionExecutor>(*bound.where);
  std::vector<std::unique_ptr<ExpressionExecutor>> sets;
  for (auto& [column, expr] : bound.set)
    sets.push_back(std::make_unique<ExpressionExecutor>(*expr));

  // Phase 1: find the rows and compute their new values; nothing changes yet.
  std::vector<TupleId> targets;
  std::vector<Table::ColumnUpdates> updates;
  std::vector<TupleId> batch_tids;
  std::vector<Row> batch_rows;
  std::vector<uint32_t> sel(kVectorSize);
  auto flush = [&] {
    if (batch_rows.empty()) return;
    if (context_.cancel != nullptr && context_.cancel->load()) {
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
    DataChunk chunk = ChunkOf(types, batch_rows);
    uint32_t count = chunk.count();
    Rows rows = chunk.rows();
    if (where) {
      count = where->Select(chunk, chunk.rows(), sel.data());
      rows = Rows{sel.data(), count};
    }
    size_t first = updates.size();
    for (uint32_t k = 0; k < count; k++) targets.push_back(batch_tids[rows[k]]);
    if (is_update) {
      updates.resize(first + count);
      for (size_t s = 0; s < sets.size(); s++) {
        const Vector& v = sets[s]->Execute(chunk, rows);
        ColumnId column(static_cast<uint16_t>(bound.set[s].first));
        for (uint32_t k = 0; k < count; k++) {
          updates[first + k].emplace_back(column, VectorValue(v, rows[k]));
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
  if (!looked_up) {
    txn_.Scan(bound.table_name, [&](TupleId tid, const Row& row) {
      batch_tids.push_back(tid);
      batch_rows.push_back(row);
      if (batch_rows.size() == kVectorSize) flush();
      return true;
    });
  }
  flush();

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
  return result;
}

}  // namespace forktail
