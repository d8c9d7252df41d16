#include "olap/execution/join/join_filter.h"

namespace forktail {

BloomFilter::BloomFilter(uint64_t expected_keys, uint32_t bits_per_key) {
  uint64_t words = 1;
  while (words * 64 < expected_keys * bits_per_key) words <<= 1;
  mask_ = words - 1;
  words_.reset(new std::atomic<uint64_t>[words]);
  for (uint64_t i = 0; i < words; ++i) words_[i].store(0, std::memory_order_relaxed);
}

void BloomFilter::Insert(uint64_t hash) {
  words_[hash & mask_].fetch_or(Mask(hash), std::memory_order_relaxed);
}

uint32_t BloomFilter::Filter(const uint64_t* hashes, Rows rows, uint32_t* out_sel) const {
  uint32_t n = 0;
  for (uint32_t k = 0; k < rows.count; ++k) {
    out_sel[n] = rows[k];
    n += MayContain(hashes[k]);
  }
  return n;
}

void BloomFilter::FilterChunk(const KeyEncoder& enc, const std::vector<uint32_t>& key_cols,
                              DataChunk* chunk) const {
  Rows rows = chunk->rows();
  std::vector<uint64_t> keys(size_t{rows.count} * enc.words()), hashes(rows.count);
  enc.Encode(*chunk, key_cols, rows, keys.data(), hashes.data());
  // NULL keys never match an equi-join: drop them too.
  uint32_t* sel = chunk->selection().data();
  uint32_t n = 0;
  for (uint32_t k = 0; k < rows.count; ++k) {
    sel[n] = rows[k];
    n += !KeyEncoder::HasNull(&keys[size_t{k} * enc.words()]) & MayContain(hashes[k]);
  }
  chunk->SetSelectionCount(n);
}

ExactFilter::ExactFilter(int64_t min, int64_t max) : min_(min), max_(max) {
  uint64_t words = (static_cast<uint64_t>(max - min) >> 6) + 1;
  bits_.reset(new std::atomic<uint64_t>[words]);
  for (uint64_t i = 0; i < words; ++i) bits_[i].store(0, std::memory_order_relaxed);
}

void ExactFilter::Insert(int64_t key) {
  if (key < min_ || key > max_) return;
  uint64_t i = static_cast<uint64_t>(key - min_);
  bits_[i >> 6].fetch_or(uint64_t{1} << (i & 63), std::memory_order_relaxed);
}

uint32_t ExactFilter::Filter(const Vector& v, Rows rows, uint32_t* out_sel) const {
  const uint64_t* nulls = v.nulls();
  return DispatchPhysical(v.physical(), [&]<typename T>() -> uint32_t {
    uint32_t n = 0;
    if constexpr (std::is_integral_v<T>) {
      const T* a = v.data<T>();
      ForEachRow(rows, [&](uint32_t r) {
        out_sel[n] = r;
        n += !NullAt(nulls, r) && Contains(static_cast<int64_t>(a[r]));
      });
    } else {
      abort();  // exact filters are for integer-represented keys
    }
    return n;
  });
}

void ExactFilter::FilterChunk(uint32_t col, DataChunk* chunk) const {
  uint32_t n = Filter(chunk->column(col), chunk->rows(), chunk->selection().data());
  chunk->SetSelectionCount(n);
}

}  // namespace forktail
