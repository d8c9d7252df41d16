#include "olap/execution/operator/physical_apply.h"

#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/expression/kernels.h"
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
    case ApplyFold::kLateral:
    case ApplyFold::kLateralLeft:
      break;  // not folded (ProcessLateral)
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

bool RowLess::operator()(const Row& a, const Row& b) const {
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

ApplyOperator::ApplyOperator(std::vector<Type> input_types, std::vector<uint32_t> binding_columns,
                             ApplyFold fold, std::vector<Type> result_types, ApplyRunner runner,
                             int parallelism)
    : PhysicalOperator("Apply", {}, 1, parallelism),
      binding_columns_(std::move(binding_columns)),
      fold_(fold),
      result_types_(std::move(result_types)),
      input_width_(input_types.size()),
      runner_(std::move(runner)) {
  input_types.insert(input_types.end(), result_types_.begin(), result_types_.end());
  SetOutputTypes(std::move(input_types));
}

size_t ApplyOperator::evaluations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size() + rows_cache_.size();
}

const std::vector<Row>& ApplyOperator::LateralRows(const Row& binding) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = rows_cache_.find(binding);
  if (it != rows_cache_.end()) return it->second;  // std::map: stable references
  return rows_cache_.emplace(binding, runner_(binding)).first->second;
}

void ApplyOperator::ProcessLateral(WorkOrderContext& context, const ChunkBlock& in,
                                   std::shared_ptr<ChunkBlock> out) {
  const std::vector<Type>& types = output_types();
  const Row nulls = [&] {
    Row r;
    for (const Type& t : result_types_) r.push_back(Value::Null(t));
    return r;
  }();
  DataChunk chunk(types);
  uint32_t n = 0;
  auto flush = [&] {
    if (n == 0) return;
    chunk.set_size(n);
    out->chunks.push_back(std::move(chunk));
    chunk = DataChunk(types);
    n = 0;
  };
  Row binding(binding_columns_.size());
  for (const DataChunk& c : in.chunks) {
    forktail::Rows rows = c.rows();
    for (uint32_t k = 0; k < rows.count; ++k) {
      uint32_t row = rows[k];
      for (size_t b = 0; b < binding_columns_.size(); ++b) {
        binding[b] = VectorValue(c.column(binding_columns_[b]), row);
      }
      const std::vector<Row>& results = LateralRows(binding);
      size_t emit = results.empty() && fold_ == ApplyFold::kLateralLeft ? 1 : results.size();
      for (size_t r = 0; r < emit; ++r) {
        const Row& values = results.empty() ? nulls : results[r];
        forktail::Rows at{&n, 1};
        for (size_t col = 0; col < input_width_; ++col) {
          ConstantKernel(VectorValue(c.column(col), row), at, &chunk.column(col));
        }
        for (size_t col = 0; col < result_types_.size(); ++col) {
          const Value& v = values.at(col);
          ConstantKernel(
              v.is_null() || v.type() == result_types_[col] ? v : v.CastTo(result_types_[col]), at,
              &chunk.column(input_width_ + col));
        }
        if (++n == kVectorSize) flush();
      }
    }
  }
  flush();
  EmitIfRows(context, std::move(out));
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
  if (fold_ == ApplyFold::kLateral || fold_ == ApplyFold::kLateralLeft) {
    ProcessLateral(context, in, std::move(out));
    return;
  }
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
