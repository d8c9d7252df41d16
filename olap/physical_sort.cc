#include "olap/physical_sort.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "olap/kernels.h"

namespace forktail {
namespace {

template <typename T>
int CompareScalar(const Type& type, T a, T b) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (type.id == TypeId::kChar) {
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      while (!b.empty() && b.back() == ' ') b.remove_suffix(1);
    }
    int c = a.compare(b);
    return c < 0 ? -1 : c > 0;
  } else if constexpr (std::is_same_v<T, double>) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return a < b ? -1 : a > b;
  } else {
    return a < b ? -1 : a > b;
  }
}

}  // namespace

SortOperator::SortOperator(std::vector<Type> types, std::vector<PhysicalSortKey> keys,
                           uint64_t limit, int parallelism)
    : PhysicalOperator("Sort", std::move(types), 1, parallelism),
      keys_(std::move(keys)),
      limit_(limit) {}

int SortOperator::CompareRows(const Run& ra, Ref a, const Run& rb, Ref b) const {
  for (const PhysicalSortKey& k : keys_) {
    const Vector& va = ra.chunks[a.chunk].column(k.column);
    const Vector& vb = rb.chunks[b.chunk].column(k.column);
    bool na = va.IsNull(a.row), nb = vb.IsNull(b.row);
    int c;
    if (na || nb) {
      if (na == nb) continue;
      bool nulls_first = k.nulls_first < 0 ? k.descending : k.nulls_first == 1;
      // NULL placement is absolute: not flipped by DESC.
      c = (na ? 1 : -1) * (nulls_first ? -1 : 1);
      return c;
    }
    c = DispatchPhysical(va.physical(), [&]<typename T>() {
      return CompareScalar<T>(va.type(), va.data<T>()[a.row], vb.data<T>()[b.row]);
    });
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

void SortOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                const StreamBlockPtr& block) {
  auto run = std::make_shared<Run>();
  for (const DataChunk& in : AsChunkBlock(block).chunks) {
    // Compact the live rows into owned vectors; strings are copied into an
    // arena the run owns, so the run does not depend on the input block.
    Rows rows = in.rows();
    DataChunk c;
    for (size_t col = 0; col < in.column_count(); ++col) {
      Vector v(in.column(col).type());
      bool is_string = v.physical() == PhysicalType::kString;
      GatherRows(in.column(col), rows, &v, 0, is_string ? v.arena() : nullptr);
      c.AddColumn(std::move(v));
    }
    c.set_size(rows.count);
    for (uint32_t r = 0; r < rows.count; ++r) {
      run->order.push_back({static_cast<uint32_t>(run->chunks.size()), r});
    }
    run->chunks.push_back(std::move(c));
  }
  if (context.IsCancelled() || run->order.empty()) return;
  auto less = [&](Ref a, Ref b) { return CompareRows(*run, a, *run, b) < 0; };
  if (limit_ < run->order.size()) {
    std::partial_sort(run->order.begin(), run->order.begin() + limit_, run->order.end(), less);
    run->order.resize(limit_);
  } else {
    std::stable_sort(run->order.begin(), run->order.end(), less);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.push_back(std::move(run));
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
  struct Head {
    uint32_t run;
    size_t pos;
  };
  auto after = [&](const Head& a, const Head& b) {
    int c = CompareRows(*runs_[a.run], runs_[a.run]->order[a.pos], *runs_[b.run],
                        runs_[b.run]->order[b.pos]);
    return c != 0 ? c > 0 : a.run > b.run;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(after)> heap(after);
  for (uint32_t r = 0; r < runs_.size(); ++r) heap.push({r, 0});
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  const std::vector<Type>& types = output_types();
  uint64_t emitted = 0;
  std::vector<std::pair<const Run*, Ref>> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    DataChunk c(types);
    for (size_t col = 0; col < types.size(); ++col) {
      Vector& dst = c.column(col);
      DispatchPhysical(dst.physical(), [&]<typename T>() {
        T* d = dst.mutable_data<T>();
        for (size_t k = 0; k < batch.size(); ++k) {
          const Vector& src = batch[k].first->chunks[batch[k].second.chunk].column(col);
          uint32_t row = batch[k].second.row;
          if (src.IsNull(row)) {
            dst.SetNull(static_cast<uint32_t>(k), true);
          } else {
            d[k] = src.data<T>()[row];
            if (src.nulls() != nullptr || dst.nulls() != nullptr) {
              dst.SetNull(static_cast<uint32_t>(k), false);
            }
          }
        }
      });
    }
    c.set_size(static_cast<uint32_t>(batch.size()));
    out->chunks.push_back(std::move(c));
    batch.clear();
  };
  while (!heap.empty() && emitted < limit_) {
    Head h = heap.top();
    heap.pop();
    const Run& run = *runs_[h.run];
    batch.emplace_back(&run, run.order[h.pos]);
    ++emitted;
    if (batch.size() == kVectorSize) flush();
    if (h.pos + 1 < run.order.size()) heap.push({h.run, h.pos + 1});
  }
  flush();
  // Strings are views into the runs' arenas: the block keeps the runs.
  for (auto& run : runs_) out->keep_alive.push_back(std::shared_ptr<const Run>(std::move(run)));
  runs_.clear();
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
