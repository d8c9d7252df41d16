#include "olap/execution/join/join_runtime_filter.h"

#include <algorithm>

namespace forktail {
namespace {

bool IsIntegerKey(const Type& t) {
  PhysicalType p = PhysicalTypeOf(t);
  return p == PhysicalType::kInt16 || p == PhysicalType::kInt32 || p == PhysicalType::kInt64;
}

uint32_t PassAll(Rows rows, uint32_t* out_sel) {
  for (uint32_t k = 0; k < rows.count; ++k) out_sel[k] = rows[k];
  return rows.count;
}

}  // namespace

JoinRuntimeFilter::JoinRuntimeFilter(std::shared_ptr<JoinFilterSlot> slot, uint32_t column)
    : slot_(std::move(slot)), column_(column) {}

uint32_t JoinRuntimeFilter::Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel) const {
  const JoinFilterSlot& s = *slot_;
  uint32_t n;
  const Vector& v = chunk.column(column_);
  if (!s.published) {
    n = PassAll(rows, out_sel);
  } else if (s.exact != nullptr && v.physical() != PhysicalType::kDouble &&
             v.physical() != PhysicalType::kString) {
    n = s.exact->Filter(v, rows, out_sel);
  } else if (s.bloom != nullptr) {
    thread_local std::vector<uint64_t> keys, hashes;
    const uint32_t w = s.encoder->words();
    keys.resize(size_t{rows.count} * w);
    hashes.resize(rows.count);
    const std::vector<uint32_t> cols = {column_};
    s.encoder->Encode(chunk, cols, rows, keys.data(), hashes.data());
    n = 0;
    for (uint32_t k = 0; k < rows.count; ++k) {
      out_sel[n] = rows[k];
      n += !KeyEncoder::HasNull(&keys[size_t{k} * w]) & s.bloom->MayContain(hashes[k]);
    }
  } else {
    n = PassAll(rows, out_sel);
  }
  slot_->rows_in.fetch_add(rows.count, std::memory_order_relaxed);
  slot_->rows_passed.fetch_add(n, std::memory_order_relaxed);
  return n;
}

JoinFilterBuilder::JoinFilterBuilder(std::shared_ptr<JoinFilterSlot> slot, uint32_t key_column,
                                     Type key_type, JoinFilterKind kind, int threads)
    : slot_(std::move(slot)),
      key_column_(key_column),
      kind_(kind),
      integer_(IsIntegerKey(key_type)),
      parts_(threads) {
  slot_->key_type = key_type;
  slot_->encoder = std::make_unique<KeyEncoder>(std::vector<Type>{key_type});
}

void JoinFilterBuilder::Collect(int thread, const DataChunk& chunk) {
  Rows rows = chunk.rows();
  if (rows.count == 0) return;
  Part& p = parts_[thread];
  const KeyEncoder& enc = *slot_->encoder;
  const uint32_t w = enc.words();
  std::vector<uint64_t> keys(size_t{rows.count} * w), hashes(rows.count);
  enc.Encode(chunk, {key_column_}, rows, keys.data(), hashes.data());
  for (uint32_t k = 0; k < rows.count; ++k) {
    const uint64_t* key = &keys[size_t{k} * w];
    if (KeyEncoder::HasNull(key)) continue;
    p.hashes.push_back(hashes[k]);
    if (integer_) {
      int64_t v = static_cast<int64_t>(key[1]);
      p.values.push_back(v);
      p.min = std::min(p.min, v);
      p.max = std::max(p.max, v);
    }
  }
}

void JoinFilterBuilder::Allocate() {
  uint64_t total = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Part& p : parts_) {
    total += p.hashes.size();
    lo = std::min(lo, p.min);
    hi = std::max(hi, p.max);
  }
  slot_->build_keys = total;
  bool exact = false;
  if (integer_ && kind_ != JoinFilterKind::kBloom && total > 0) {
    uint64_t bits = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;  // wraps at 2^64
    uint64_t cap =
        kind_ == JoinFilterKind::kExact
            ? (uint64_t{1} << 30)
            : std::max(JoinFilterSlot::kExactBitsPerRow * total, JoinFilterSlot::kExactMinBits);
    exact = bits != 0 && bits <= cap;
    if (exact) {
      slot_->exact = std::make_unique<ExactFilter>(lo, hi);
      filter_bytes_ = (bits + 63) / 64 * 8;
    }
  }
  if (!exact) {
    slot_->bloom = std::make_unique<BloomFilter>(std::max<uint64_t>(total, 1));
    uint64_t words = 1;
    while (words * 64 < std::max<uint64_t>(total, 1) * 16) words <<= 1;
    filter_bytes_ = words * 8;
  }
}

void JoinFilterBuilder::Insert(int thread) {
  Part& p = parts_[thread];
  if (slot_->exact != nullptr) {
    for (int64_t v : p.values) slot_->exact->Insert(v);
  } else {
    for (uint64_t h : p.hashes) slot_->bloom->Insert(h);
  }
  std::vector<uint64_t>().swap(p.hashes);
  std::vector<int64_t>().swap(p.values);
}

size_t JoinFilterBuilder::ThreadBytes(int thread) const {
  const Part& p = parts_[thread];
  return p.hashes.capacity() * sizeof(uint64_t) + p.values.capacity() * sizeof(int64_t);
}

size_t JoinFilterBuilder::FilterBytes() const { return filter_bytes_; }

}  // namespace forktail
