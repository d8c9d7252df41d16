#include "olap/execution/aggregate/aggregator.h"

#include <algorithm>
#include <mutex>

#include "olap/expression/kernels.h"

namespace forktail {

const char* AggMethodName(AggMethod m) {
  switch (m) {
    case AggMethod::kShared:
      return "shared";
    case AggMethod::kIndependent:
      return "independent";
    case AggMethod::kPartition:
      return "partition";
    case AggMethod::kPlat:
      return "plat";
    case AggMethod::kHybrid:
      return "hybrid";
    case AggMethod::kAdaptive:
      return "adaptive";
  }
  return "?";
}

struct Aggregator::Partition {
  Partition(const KeyEncoder* e, const std::vector<AggregateSpec>* a) : table(e, a) {}
  std::mutex latch;  // kShared / kHybrid only
  GroupTable table;
};

struct Aggregator::ThreadState {
  ThreadState(const KeyEncoder* e, const std::vector<AggregateSpec>* a)
      : local(e, a), arena(std::make_shared<StringArena>()), bufs(kPartitions) {}
  GroupTable local;
  bool plat_mode = false;
  uint32_t private_limit = kPlatGroups;
  std::shared_ptr<StringArena> arena;        // strings of buffered rows
  std::vector<std::vector<DataChunk>> bufs;  // partition buffers
  std::vector<uint64_t> keys, sub_keys;
  std::vector<uint64_t> hashes, sub_hashes;
  std::vector<uint32_t> groups, order, sub_rows;
  std::vector<std::vector<uint32_t>> by_part;  // Scatter's rows per partition
};

Aggregator::Aggregator(AggMethod method, std::vector<uint32_t> key_cols,
                       std::vector<Type> key_types, std::vector<AggregateSpec> aggs, int threads,
                       uint32_t private_groups)
    : method_(method),
      key_cols_(std::move(key_cols)),
      enc_(std::move(key_types)),
      aggs_(std::move(aggs)),
      threads_(threads),
      private_groups_(private_groups != 0              ? private_groups
                      : method == AggMethod::kAdaptive ? kAdaptiveGroups
                                                       : kPlatGroups) {
  auto keep = [&](uint32_t col, const Type& t) -> uint32_t {
    auto it = std::find(kept_cols_.begin(), kept_cols_.end(), col);
    if (it != kept_cols_.end()) return static_cast<uint32_t>(it - kept_cols_.begin());
    kept_cols_.push_back(col);
    kept_types_.push_back(t);
    return static_cast<uint32_t>(kept_cols_.size() - 1);
  };
  for (size_t i = 0; i < key_cols_.size(); ++i) {
    kept_key_cols_.push_back(keep(key_cols_[i], enc_.types()[i]));
  }
  for (const auto& a : aggs_) {
    inputs_.push_back(a.input);
    kept_inputs_.push_back(a.kind == AggKind::kCountStar ? 0 : keep(a.input, a.input_type));
  }
  for (int t = 0; t < threads; ++t) {
    ts_.push_back(std::make_unique<ThreadState>(&enc_, &aggs_));
    ts_.back()->private_limit = private_groups_;
  }
  parts_ = std::vector<std::optional<Partition>>(kPartitions);
  for (uint32_t p = 0; p < kPartitions; ++p) {
    parts_[p].emplace(&enc_, &aggs_);
  }
}

Aggregator::~Aggregator() = default;

void Aggregator::Consume(int thread, const DataChunk& chunk) {
  ConsumeRows(*ts_[thread], chunk, chunk.rows(), key_cols_, inputs_);
}

void Aggregator::ConsumeRows(ThreadState& ts, const DataChunk& chunk, Rows rows,
                             const std::vector<uint32_t>& key_cols,
                             const std::vector<uint32_t>& inputs) {
  const uint32_t n = rows.count;
  if (n == 0) return;
  if (key_cols.empty() && (method_ == AggMethod::kIndependent || method_ == AggMethod::kAdaptive)) {
    ts.local.UpdateGlobal(chunk, inputs, rows);  // one group: nothing to hash or find
    return;
  }
  ts.keys.resize(size_t{n} * enc_.words());
  ts.hashes.resize(n);
  ts.groups.resize(n);
  enc_.Encode(chunk, key_cols, rows, ts.keys.data(), ts.hashes.data());
  switch (method_) {
    case AggMethod::kShared:
      ApplyShared(ts, chunk, rows, ts.keys.data(), ts.hashes.data(), inputs);
      return;
    case AggMethod::kPartition:
      Scatter(ts, chunk, rows, ts.hashes.data());
      return;
    case AggMethod::kIndependent:
      ts.local.FindOrInsert(ts.keys.data(), ts.hashes.data(), n, ts.groups.data());
      ts.local.Update(chunk, inputs, rows, ts.groups.data());
      return;
    case AggMethod::kAdaptive:
      if (!ts.plat_mode) {
        ts.local.FindOrInsert(ts.keys.data(), ts.hashes.data(), n, ts.groups.data());
        ts.local.Update(chunk, inputs, rows, ts.groups.data());
        if (ts.local.size() > private_groups_) {
          ts.plat_mode = true;
          ts.private_limit = ts.local.size();
        }
        return;
      }
      // Many groups: the private table no longer fits the cache, so every
      // row of a new group would pay a miss there and again in the merge.
      // Scatter instead; the table's groups are folded in by Merge().
      Scatter(ts, chunk, rows, ts.hashes.data());
      return;
    case AggMethod::kPlat:
    case AggMethod::kHybrid: {
      uint32_t misses = ts.local.FindOrInsert(ts.keys.data(), ts.hashes.data(), n, ts.groups.data(),
                                              ts.private_limit);
      ts.local.Update(chunk, inputs, rows, ts.groups.data());
      if (misses == 0) return;
      // Rows whose group did not fit the private table.
      ts.sub_rows.clear();
      for (uint32_t k = 0; k < n; ++k) {
        if (ts.groups[k] == GroupTable::kNoGroup) ts.sub_rows.push_back(rows[k]);
      }
      Rows miss{ts.sub_rows.data(), static_cast<uint32_t>(ts.sub_rows.size())};
      if (method_ == AggMethod::kHybrid) {
        FlushToShared(ts.local);
        ts.local.Clear();
        std::vector<uint32_t> again(ts.sub_rows);
        ConsumeRows(ts, chunk, Rows{again.data(), static_cast<uint32_t>(again.size())}, key_cols,
                    inputs);
        return;
      }
      std::vector<uint64_t> miss_hashes;
      miss_hashes.reserve(misses);
      for (uint32_t k = 0; k < n; ++k) {
        if (ts.groups[k] == GroupTable::kNoGroup) miss_hashes.push_back(ts.hashes[k]);
      }
      Scatter(ts, chunk, miss, miss_hashes.data());
      return;
    }
  }
}

void Aggregator::ApplyShared(ThreadState& ts, const DataChunk& chunk, Rows rows,
                             const uint64_t* keys, const uint64_t* hashes,
                             const std::vector<uint32_t>& inputs) {
  // Bucket the rows by partition, then take each partition's latch once.
  const uint32_t n = rows.count, w = enc_.words();
  uint32_t start[kPartitions + 1] = {};
  for (uint32_t k = 0; k < n; ++k) ++start[PartitionOf(hashes[k]) + 1];
  for (uint32_t p = 0; p < kPartitions; ++p) start[p + 1] += start[p];
  uint32_t fill[kPartitions];
  std::copy(start, start + kPartitions, fill);
  ts.order.resize(n);
  for (uint32_t k = 0; k < n; ++k) ts.order[fill[PartitionOf(hashes[k])]++] = k;
  ts.sub_keys.resize(size_t{n} * w);
  ts.sub_hashes.resize(n);
  ts.sub_rows.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t k = ts.order[i];
    std::copy(keys + size_t{k} * w, keys + size_t{k + 1} * w, &ts.sub_keys[size_t{i} * w]);
    ts.sub_hashes[i] = hashes[k];
    ts.sub_rows[i] = rows[k];
  }
  for (uint32_t p = 0; p < kPartitions; ++p) {
    uint32_t b = start[p], m = start[p + 1] - b;
    if (m == 0) continue;
    Partition& part = *parts_[p];
    std::lock_guard<std::mutex> guard(part.latch);
    size_t before = part.table.bytes();
    part.table.FindOrInsert(&ts.sub_keys[size_t{b} * w], &ts.sub_hashes[b], m, &ts.groups[b]);
    part.table.Update(chunk, inputs, Rows{&ts.sub_rows[b], m}, &ts.groups[b]);
    shared_bytes_.fetch_add(part.table.bytes() - before, std::memory_order_relaxed);
  }
}

void Aggregator::Scatter(ThreadState& ts, const DataChunk& chunk, Rows rows,
                         const uint64_t* hashes) {
  // The thread's lists, reused: a chunk's 64 vectors cost more in malloc
  // than the scatter itself (TPC-H Q18's 1.5M groups).
  std::vector<std::vector<uint32_t>>& by_part = ts.by_part;
  by_part.resize(kPartitions);
  for (auto& list : by_part) list.clear();
  for (uint32_t k = 0; k < rows.count; ++k) by_part[PartitionOf(hashes[k])].push_back(rows[k]);
  for (uint32_t p = 0; p < kPartitions; ++p) {
    const auto& list = by_part[p];
    uint32_t done = 0;
    while (done < list.size()) {
      auto& bufs = ts.bufs[p];
      if (bufs.empty() || bufs.back().size() == kVectorSize) bufs.emplace_back(kept_types_);
      DataChunk& out = bufs.back();
      uint32_t take = std::min<uint32_t>(kVectorSize - out.size(), list.size() - done);
      Rows sub{list.data() + done, take};
      for (size_t c = 0; c < kept_cols_.size(); ++c) {
        GatherRows(chunk.column(kept_cols_[c]), sub, &out.column(c), out.size(), ts.arena.get());
      }
      out.set_size(out.size() + take);
      done += take;
    }
  }
}

void Aggregator::FlushToShared(GroupTable& table) {
  std::vector<uint32_t> by_part[kPartitions];
  for (uint32_t g = 0; g < table.size(); ++g) by_part[PartitionOf(table.hash(g))].push_back(g);
  for (uint32_t p = 0; p < kPartitions; ++p) {
    if (by_part[p].empty()) continue;
    std::lock_guard<std::mutex> guard(parts_[p]->latch);
    size_t before = parts_[p]->table.bytes();
    for (uint32_t g : by_part[p]) parts_[p]->table.Merge(table, g);
    shared_bytes_.fetch_add(parts_[p]->table.bytes() - before, std::memory_order_relaxed);
  }
}

void Aggregator::Merge(int thread) {
  ThreadState& me = *ts_[thread];
  if (method_ == AggMethod::kShared) return;
  if (method_ == AggMethod::kHybrid) {
    FlushToShared(me.local);
    me.local.Clear();
    return;
  }
  auto mine = [&](uint32_t p) { return static_cast<int>(p % threads_) == thread; };
  // Private tables (independent, PLAT, adaptive): fold their groups of my partitions.
  for (auto& ts : ts_) {
    const GroupTable& t = ts->local;
    for (uint32_t g = 0; g < t.size(); ++g) {
      uint32_t p = PartitionOf(t.hash(g));
      if (mine(p)) parts_[p]->table.Merge(t, g);
    }
  }
  // Partition buffers (partition-and-aggregate, PLAT overflow).
  ThreadState scratch(&enc_, &aggs_);
  for (uint32_t p = 0; p < kPartitions; ++p) {
    if (!mine(p)) continue;
    GroupTable& table = parts_[p]->table;
    for (auto& ts : ts_) {
      for (const DataChunk& c : ts->bufs[p]) {
        uint32_t n = c.size();
        scratch.keys.resize(size_t{n} * enc_.words());
        scratch.hashes.resize(n);
        scratch.groups.resize(n);
        enc_.Encode(c, kept_key_cols_, c.rows(), scratch.keys.data(), scratch.hashes.data());
        table.FindOrInsert(scratch.keys.data(), scratch.hashes.data(), n, scratch.groups.data());
        table.Update(c, kept_inputs_, c.rows(), scratch.groups.data());
      }
    }
  }
}

size_t Aggregator::ThreadBytes(int thread) const {
  const ThreadState& ts = *ts_[thread];
  size_t chunk = 0;
  for (const Type& t : kept_types_) {
    chunk += size_t{kVectorSize} * PhysicalWidth(PhysicalTypeOf(t)) + kVectorSize / 8;
  }
  size_t b = ts.local.bytes() + ts.arena->bytes();
  for (const auto& buf : ts.bufs) b += buf.size() * chunk;
  b += (ts.keys.capacity() + ts.sub_keys.capacity() + ts.hashes.capacity() +
        ts.sub_hashes.capacity()) *
           sizeof(uint64_t) +
       (ts.groups.capacity() + ts.order.capacity() + ts.sub_rows.capacity()) * sizeof(uint32_t);
  for (const auto& list : ts.by_part) b += list.capacity() * sizeof(uint32_t);
  return b;
}

size_t Aggregator::MergedBytes(int thread) const {
  if (method_ == AggMethod::kShared || method_ == AggMethod::kHybrid) return 0;
  size_t b = 0;
  for (uint32_t p = 0; p < kPartitions; ++p) {
    if (static_cast<int>(p % threads_) == thread) b += parts_[p]->table.bytes();
  }
  return b;
}

std::vector<DataChunk> Aggregator::Result(uint32_t slice, uint32_t slices) const {
  std::vector<DataChunk> out;
  if (key_cols_.empty()) {
    if (slice != 0) return out;  // the one group lives in one partition
    bool any = false;
    for (const auto& p : parts_) any |= p->table.size() > 0;
    if (!any) parts_[0]->table.EnsureEmptyGroup();
    slices = 1;
  }
  const size_t n = parts_.size();
  for (size_t p = n * slice / slices; p < n * (slice + 1) / slices; ++p)
    parts_[p]->table.Emit(&out);
  return out;
}

}  // namespace forktail
