#include "olap/execution/sort/sorter.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "olap/expression/kernels.h"

namespace forktail {
namespace {

template <typename T>
int CompareTyped(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  T x = a.data<T>()[i], y = b.data<T>()[j];
  if constexpr (std::is_same_v<T, double>) {
    if (x < y) return -1;
    if (y < x) return 1;
    // Equal, or a NaN involved: NaN sorts above every number, equals NaN.
    return static_cast<int>(std::isnan(x)) - static_cast<int>(std::isnan(y));
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    int c = x.compare(y);
    return (c > 0) - (c < 0);
  } else {
    return (x > y) - (x < y);
  }
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

int CompareChar(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  int c =
      TrimBlanks(a.data<std::string_view>()[i]).compare(TrimBlanks(b.data<std::string_view>()[j]));
  return (c > 0) - (c < 0);
}

// jsonb's and arrays' own order (OwnOrder), not their text's.
int CompareOwnOrder(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  return (*OwnOrderOf(a.type()))(a.data<std::string_view>()[i], b.data<std::string_view>()[j]);
}

Sorter::CompareFn CompareFor(const Type& type) {
  if (type.id == TypeId::kChar) return &CompareChar;
  if (OwnOrderOf(type)) return &CompareOwnOrder;
  return DispatchPhysical(PhysicalTypeOf(type),
                          []<typename T>() -> Sorter::CompareFn { return &CompareTyped<T>; });
}

}  // namespace

Sorter::Sorter(std::vector<Type> types, std::vector<SortKey> keys, uint64_t limit, uint64_t offset)
    : types_(std::move(types)), keys_(std::move(keys)), limit_(limit), offset_(offset) {
  for (const SortKey& k : keys_) cmp_.push_back(CompareFor(types_[k.column]));
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

size_t Sorter::RunBytes(Run& run) const {
  size_t bytes = run.order.capacity() * sizeof(uint32_t);
  for (size_t c = 0; c < types_.size(); ++c) {
    Vector& v = run.rows.column(c);
    bool is_string = v.physical() == PhysicalType::kString;
    bytes += size_t{kVectorSize} * PhysicalWidth(v.physical()) + kVectorSize / 8 +
             (is_string ? v.arena()->bytes() : 0);
  }
  return bytes;
}

int64_t Sorter::AddRun(const DataChunk& chunk) {
  Rows rows = chunk.rows();
  if (rows.count == 0 || limit_ == 0) return 0;
  // Sort the input's row numbers in place, then copy only the rows kept, in
  // order: the run is dense and sorted (order = identity).
  std::vector<uint32_t> order(rows.count);
  for (uint32_t i = 0; i < rows.count; ++i) order[i] = rows[i];
  auto less = [&](uint32_t x, uint32_t y) { return CompareRows(chunk, x, chunk, y) < 0; };
  uint64_t keep =
      limit_ == kNoLimit ? rows.count : std::min<uint64_t>(rows.count, limit_ + offset_);
  if (keep < rows.count) {
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), less);
    order.resize(keep);
  } else {
    std::stable_sort(order.begin(), order.end(), less);
  }
  Run run{DataChunk(types_), {}};
  const uint32_t n = static_cast<uint32_t>(order.size());
  for (size_t c = 0; c < types_.size(); ++c) {
    Vector& out = run.rows.column(c);
    bool is_string = out.physical() == PhysicalType::kString;
    GatherRows(chunk.column(c), Rows{order.data(), n}, &out, 0, is_string ? out.arena() : nullptr);
  }
  run.rows.set_size(n);
  run.order.resize(n);
  for (uint32_t i = 0; i < n; ++i) run.order[i] = i;
  int64_t bytes = static_cast<int64_t>(RunBytes(run));
  std::lock_guard<std::mutex> guard(mu_);
  if (!Bounded() || runs_.empty()) {
    runs_.push_back(std::move(run));
    return bytes;
  }
  // Small top-k: keep one run of the best limit + offset rows seen so far.
  int64_t before = static_cast<int64_t>(RunBytes(runs_[0]));
  runs_[0] = MergeTwo(runs_[0], run, limit_ + offset_);
  return static_cast<int64_t>(RunBytes(runs_[0])) - before;
}

Sorter::Run Sorter::MergeTwo(const Run& a, const Run& b, uint64_t keep) const {
  // Both runs are dense and sorted; ties take a's row first (a is older).
  std::vector<std::pair<const Run*, uint32_t>> refs;
  uint32_t i = 0, j = 0;
  while (refs.size() < keep && (i < a.rows.size() || j < b.rows.size())) {
    bool take_a =
        j >= b.rows.size() || (i < a.rows.size() && CompareRows(a.rows, i, b.rows, j) <= 0);
    refs.emplace_back(take_a ? &a : &b, take_a ? i++ : j++);
  }
  Run out{DataChunk(types_), {}};
  const uint32_t n = static_cast<uint32_t>(refs.size());
  for (size_t col = 0; col < types_.size(); ++col) {
    Vector& dst = out.rows.column(col);
    StringArena* arena = dst.physical() == PhysicalType::kString ? dst.arena() : nullptr;
    DispatchPhysical(dst.physical(), [&]<typename T>() {
      T* d = dst.mutable_data<T>();
      for (uint32_t k = 0; k < n; ++k) {
        const Vector& src = refs[k].first->rows.column(col);
        uint32_t r = refs[k].second;
        bool is_null = src.IsNull(r);
        if constexpr (std::is_same_v<T, std::string_view>) {
          d[k] = is_null ? std::string_view() : arena->Add(src.data<T>()[r]);
        } else {
          d[k] = src.data<T>()[r];
        }
        if (is_null || dst.nulls() != nullptr) dst.SetNull(k, is_null);
      }
    });
  }
  out.rows.set_size(n);
  out.order.resize(n);
  for (uint32_t k = 0; k < n; ++k) out.order[k] = k;
  return out;
}

void Sorter::Gather(const std::vector<std::pair<uint32_t, uint32_t>>& refs, DataChunk* out) const {
  const uint32_t n = static_cast<uint32_t>(refs.size());
  for (size_t col = 0; col < types_.size(); ++col) {
    Vector& dst = out->column(col);
    bool any_null = false;
    DispatchPhysical(dst.physical(), [&]<typename T>() {
      T* d = dst.mutable_data<T>();
      for (uint32_t k = 0; k < n; ++k) {
        const Vector& src = runs_[refs[k].first].rows.column(col);
        d[k] = src.data<T>()[refs[k].second];
        any_null |= src.IsNull(refs[k].second);
      }
    });
    if (!any_null) continue;
    for (uint32_t k = 0; k < n; ++k) {
      dst.SetNull(k, runs_[refs[k].first].rows.column(col).IsNull(refs[k].second));
    }
  }
  out->set_size(n);
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
  std::vector<std::pair<uint32_t, uint32_t>> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    out.emplace_back(types_);
    Gather(batch, &out.back());
    batch.clear();
  };
  uint64_t skipped = 0, emitted = 0;
  while (!heap.empty() && emitted < limit_) {
    Cursor c = heap.top();
    heap.pop();
    const Run& run = runs_[c.run];
    if (skipped < offset_) {
      ++skipped;
    } else {
      batch.emplace_back(c.run, run.order[c.pos]);
      ++emitted;
      if (batch.size() == kVectorSize) flush();
    }
    if (c.pos + 1 < run.order.size()) heap.push({c.run, c.pos + 1});
  }
  flush();
  return out;
}

}  // namespace forktail
