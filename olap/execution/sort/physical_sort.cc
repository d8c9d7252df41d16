#include "olap/execution/sort/physical_sort.h"

#include <algorithm>

#include "olap/expression/kernels.h"

namespace forktail {
namespace {

std::vector<SortKey> ToSorterKeys(const std::vector<PhysicalSortKey>& keys) {
  std::vector<SortKey> out;
  for (const PhysicalSortKey& k : keys) {
    SortKey key = SortKey::Postgres(k.column, k.descending);
    if (k.nulls_first >= 0) key.nulls_first = k.nulls_first == 1;
    out.push_back(key);
  }
  return out;
}

}  // namespace

SortOperator::SortOperator(std::vector<Type> types, std::vector<PhysicalSortKey> keys,
                           uint64_t limit, int parallelism)
    : PhysicalOperator("Sort", types, 1, parallelism),
      sorter_(std::make_shared<Sorter>(std::move(types), ToSorterKeys(keys), limit)) {}

void SortOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                const StreamBlockPtr& block) {
  runs_charge_.Bind(context.allocator<char>().memory());
  for (const DataChunk& in : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    runs_charge_.Add(sorter_->AddRun(in));
  }
}

bool SortOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (!merging_) {
    merging_ = true;
    Spawn(sink, [this](WorkOrderContext& context) { Merge(context); });
  }
  return true;
}

void SortOperator::Merge(WorkOrderContext& context) {
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  size_t bytes = 0;
  for (DataChunk& c : sorter_->Merge()) {
    for (size_t i = 0; i < c.column_count(); ++i) {
      bytes += size_t{kVectorSize} * PhysicalWidth(c.column(i).physical()) + kVectorSize / 8;
    }
    out->chunks.push_back(std::move(c));
  }
  auto charge = std::make_shared<MemoryCharge>("sort output");
  charge->Bind(context.allocator<char>().memory());
  charge->Set(bytes);
  out->keep_alive.push_back(std::move(charge));
  // Strings are views into the runs: the block keeps the sorter.
  out->keep_alive.push_back(sorter_);
  EmitIfRows(context, std::move(out));
}

LimitOperator::LimitOperator(std::vector<Type> types, uint64_t limit, uint64_t offset)
    : PhysicalOperator("Limit", std::move(types), 1, 64), limit_(limit), offset_(offset) {}

void LimitOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                 const StreamBlockPtr& block) {
  const ChunkBlock& in = AsChunkBlock(block);
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  out->keep_alive.push_back(block);
  // Arrival positions [offset, end) pass; a chunk claims [before, before + count).
  const uint64_t end = limit_ > kNoLimit - offset_ ? kNoLimit : offset_ + limit_;
  for (const DataChunk& chunk : in.chunks) {
    uint64_t want = chunk.count();
    uint64_t before = taken_.fetch_add(want, std::memory_order_relaxed);
    if (before >= end) break;
    uint64_t first = std::max(before, offset_), last = std::min(before + want, end);
    if (first >= last) continue;
    DataChunk mine = BorrowChunk(chunk);
    if (last - first < want) {
      Rows rows = chunk.rows();
      std::vector<uint32_t> sel;
      for (uint64_t k = first - before; k < last - before; ++k) {
        sel.push_back(rows[static_cast<uint32_t>(k)]);
      }
      mine.SetSelection(sel.data(), static_cast<uint32_t>(sel.size()));
    }
    out->chunks.push_back(std::move(mine));
  }
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
