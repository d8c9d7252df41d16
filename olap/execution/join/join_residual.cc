#include "olap/execution/join/join_residual.h"

#include <algorithm>
#include <string>

#include "olap/expression/kernels.h"
#include "storage/error.h"

namespace forktail {
namespace {

void MarkUsed(const Expression& e, std::vector<bool>* used) {
  if (e.kind == ExprKind::kColumnRef && e.column < used->size()) (*used)[e.column] = true;
  for (const ExprPtr& c : e.children) MarkUsed(*c, used);
}

void CheckRefs(const Expression& e, const std::vector<Type>& pair_types) {
  if (e.kind == ExprKind::kColumnRef) {
    if (e.column >= pair_types.size()) {
      throw DbError(sqlstate::kInternalError,
                    "join residual refers to column " + std::to_string(e.column) + " of " +
                        std::to_string(pair_types.size()) + " probe and payload columns");
    }
    if (PhysicalTypeOf(e.type) != PhysicalTypeOf(pair_types[e.column])) {
      throw DbError(sqlstate::kInternalError, "join residual column " + std::to_string(e.column) +
                                                  " has type " + e.type.ToString() +
                                                  ", the pair column is " +
                                                  pair_types[e.column].ToString());
    }
  }
  for (const ExprPtr& c : e.children) CheckRefs(*c, pair_types);
}

}  // namespace

JoinResidual::JoinResidual(const Expression* residual, const JoinHashTable* table)
    : residual_(residual), table_(table), executor_(*residual) {}

void JoinResidual::Validate(const Expression& residual, const std::vector<Type>& probe_types,
                            const std::vector<Type>& payload_types) {
  if (residual.type.id != TypeId::kBoolean) {
    throw DbError(sqlstate::kInternalError,
                  "join residual must be boolean, not " + residual.type.ToString());
  }
  std::vector<Type> pair_types = probe_types;
  pair_types.insert(pair_types.end(), payload_types.begin(), payload_types.end());
  CheckRefs(residual, pair_types);
}

void JoinResidual::Prepare(const DataChunk& chunk) {
  probe_columns_ = static_cast<uint32_t>(chunk.column_count());
  std::vector<Type> types;
  for (size_t c = 0; c < chunk.column_count(); ++c) types.push_back(chunk.column(c).type());
  for (const Type& t : table_->payload_types()) types.push_back(t);
  used_.assign(types.size(), false);
  MarkUsed(*residual_, &used_);
  // Unreferenced columns stay as small placeholders (never read).
  pairs_ = DataChunk();
  for (size_t c = 0; c < types.size(); ++c) {
    pairs_.AddColumn(used_[c] ? Vector(types[c]) : Vector());
  }
  prepared_ = true;
}

void JoinResidual::Evaluate(const DataChunk& chunk, const uint32_t* probe_rows,
                            const uint32_t* build_rows, size_t n, uint8_t* pass) {
  if (!prepared_) Prepare(chunk);
  std::fill(pass, pass + n, uint8_t{0});
  for (size_t done = 0; done < n;) {
    uint32_t take = static_cast<uint32_t>(std::min<size_t>(kVectorSize, n - done));
    for (uint32_t c = 0; c < pairs_.column_count(); ++c) {
      if (!used_[c]) continue;
      Vector& out = pairs_.column(c);
      out.ClearNulls();
      if (c < probe_columns_) {
        // Views into the probe chunk: it outlives this evaluation.
        GatherRows(chunk.column(c), Rows{probe_rows + done, take}, &out, 0, nullptr);
      } else {
        table_->GatherPayload(build_rows + done, take, c - probe_columns_, &out, 0);
      }
    }
    pairs_.set_size(take);
    uint32_t kept = executor_.Select(pairs_, Rows{nullptr, take}, sel_.data());
    for (uint32_t k = 0; k < kept; ++k) pass[done + sel_[k]] = 1;
    done += take;
  }
}

}  // namespace forktail
