#include "olap/physical_apply.h"

#include "olap/kernels.h"
#include "olap/physical_chunk_block.h"
#include "storage/error.h"

namespace forktail {

Value FoldApplyRows(ApplyFold fold, const std::vector<Row>& rows, const Type& type) {
  switch (fold) {
    case ApplyFold::kScalar: {
      if (rows.empty()) return Value::Null(type);
      if (rows.size() > 1) {
        throw DbError(sqlstate::kCardinalityViolation,
                      "more than one row returned by a subquery used as an expression");
      }
      const Value& v = rows[0].at(0);
      if (v.is_null()) return Value::Null(type);
      return v.type() == type ? v : v.CastTo(type);
    }
    case ApplyFold::kExists:
      return Value::Boolean(!rows.empty());
    case ApplyFold::kAny:
    case ApplyFold::kAll: {
      // ANY: TRUE decides; ALL: FALSE decides.
      bool decisive = fold == ApplyFold::kAny;
      bool saw_null = false;
      for (const Row& r : rows) {
        const Value& v = r.at(0);
        if (v.is_null()) {
          saw_null = true;
        } else if (v.GetBool() == decisive) {
          return Value::Boolean(decisive);
        }
      }
      if (saw_null) return Value::Null(Type::Boolean());
      return Value::Boolean(!decisive);
    }
  }
  return Value::Null(type);
}

bool ApplyOperator::RowLess::operator()(const Row& a, const Row& b) const {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bool an = a[i].is_null(), bn = b[i].is_null();
    if (an != bn) return an;
    if (an) continue;
    int c = a[i].Compare(b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

ApplyOperator::ApplyOperator(std::vector<Type> input_types, std::vector<uint32_t> binding_columns,
                             ApplyFold fold, Type result_type, ApplyRunner runner, int parallelism)
    : PhysicalOperator("Apply", {}, 1, parallelism),
      binding_columns_(std::move(binding_columns)),
      fold_(fold),
      result_type_(std::move(result_type)),
      runner_(std::move(runner)) {
  input_types.push_back(result_type_);
  SetOutputTypes(std::move(input_types));
}

size_t ApplyOperator::evaluations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size();
}

Value ApplyOperator::Evaluate(const Row& binding) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(binding);
  if (it != cache_.end()) return it->second;
  Value v = FoldApplyRows(fold_, runner_(binding), result_type_);
  cache_.emplace(binding, v);
  return v;
}

void ApplyOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                 const StreamBlockPtr& block) {
  const ChunkBlock& in = AsChunkBlock(block);
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  out->keep_alive.push_back(block);
  Row binding(binding_columns_.size());
  for (const DataChunk& chunk : in.chunks) {
    DataChunk mine = BorrowChunk(chunk);
    Vector result(result_type_);
    Rows rows = chunk.rows();
    for (uint32_t k = 0; k < rows.count; ++k) {
      uint32_t row = rows[k];
      for (size_t b = 0; b < binding_columns_.size(); ++b) {
        binding[b] = VectorValue(chunk.column(binding_columns_[b]), row);
      }
      ConstantKernel(Evaluate(binding), Rows{&row, 1}, &result);
    }
    mine.AddColumn(std::move(result));
    out->chunks.push_back(std::move(mine));
  }
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
