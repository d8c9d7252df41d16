#include "olap/sorter.h"

#include <algorithm>
#include <queue>

#include "olap/kernels.h"

namespace forktail {
namespace {

template <typename T>
int CompareTyped(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  T x = a.data<T>()[i], y = b.data<T>()[j];
  return x < y ? -1 : (y < x ? 1 : 0);
}

Sorter::CompareFn CompareFor(PhysicalType p) {
  return DispatchPhysical(p, []<typename T>() -> Sorter::CompareFn { return &CompareTyped<T>; });
}

}  // namespace

Sorter::Sorter(std::vector<Type> types, std::vector<SortKey> keys, uint64_t limit, uint64_t offset)
    : types_(std::move(types)), keys_(std::move(keys)), limit_(limit), offset_(offset) {
  for (const SortKey& k : keys_) cmp_.push_back(CompareFor(PhysicalTypeOf(types_[k.column])));
}

int Sorter::CompareRows(const DataChunk& a, uint32_t i, const DataChunk& b, uint32_t j) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    const SortKey& key = keys_[k];
    const Vector& va = a.column(key.column);
    const Vector& vb = b.column(key.column);
    bool na = va.IsNull(i), nb = vb.IsNull(j);
    if (na || nb) {
      if (na && nb) continue;
      return (na == key.nulls_first) ? -1 : 1;
    }
    int c = cmp_[k](va, i, vb, j);
    if (c != 0) return key.ascending ? c : -c;
  }
  return 0;
}

void Sorter::AddRun(const DataChunk& chunk) {
  Rows rows = chunk.rows();
  if (rows.count == 0 || limit_ == 0) return;
  Run run{DataChunk(types_), {}};
  for (size_t c = 0; c < types_.size(); ++c) {
    Vector& out = run.rows.column(c);
    GatherRows(chunk.column(c), rows, &out, 0, out.arena());
  }
  run.rows.set_size(rows.count);
  run.order.resize(rows.count);
  for (uint32_t i = 0; i < rows.count; ++i) run.order[i] = i;
  auto less = [&](uint32_t x, uint32_t y) { return CompareRows(run.rows, x, run.rows, y) < 0; };
  uint64_t keep =
      limit_ == kNoLimit ? rows.count : std::min<uint64_t>(rows.count, limit_ + offset_);
  if (keep < rows.count) {
    std::partial_sort(run.order.begin(), run.order.begin() + keep, run.order.end(), less);
    run.order.resize(keep);
  } else {
    std::stable_sort(run.order.begin(), run.order.end(), less);
  }
  std::lock_guard<std::mutex> guard(mu_);
  runs_.push_back(std::move(run));
}

std::vector<DataChunk> Sorter::Merge() {
  struct Cursor {
    uint32_t run;
    uint32_t pos;
  };
  auto greater = [&](const Cursor& x, const Cursor& y) {
    const Run& a = runs_[x.run];
    const Run& b = runs_[y.run];
    int c = CompareRows(a.rows, a.order[x.pos], b.rows, b.order[y.pos]);
    return c != 0 ? c > 0 : x.run > y.run;  // ties: earlier run first
  };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(greater)> heap(greater);
  for (uint32_t r = 0; r < runs_.size(); ++r) heap.push({r, 0});
  std::vector<DataChunk> out;
  uint64_t skipped = 0, emitted = 0;
  std::vector<uint32_t> one(1);
  while (!heap.empty() && emitted < limit_) {
    Cursor c = heap.top();
    heap.pop();
    const Run& run = runs_[c.run];
    if (skipped < offset_) {
      ++skipped;
    } else {
      if (out.empty() || out.back().size() == kVectorSize) out.emplace_back(types_);
      DataChunk& o = out.back();
      one[0] = run.order[c.pos];
      for (size_t col = 0; col < types_.size(); ++col) {
        GatherRows(run.rows.column(col), Rows{one.data(), 1}, &o.column(col), o.size(), nullptr);
      }
      o.set_size(o.size() + 1);
      ++emitted;
    }
    if (c.pos + 1 < run.order.size()) heap.push({c.run, c.pos + 1});
  }
  return out;
}

}  // namespace forktail
