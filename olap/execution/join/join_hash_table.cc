#include "olap/execution/join/join_hash_table.h"

#include <algorithm>

#include "olap/expression/kernels.h"

namespace forktail {

namespace {
uint64_t BucketCount(uint64_t rows) {
  uint64_t cap = 16;
  while (cap < rows * 2) cap <<= 1;
  return cap;
}
}  // namespace

JoinHashTable::JoinHashTable(std::vector<Type> key_types, std::vector<uint32_t> key_cols,
                             std::vector<Type> payload_types, std::vector<uint32_t> payload_cols,
                             int threads)
    : enc_(std::move(key_types)),
      key_cols_(std::move(key_cols)),
      payload_types_(std::move(payload_types)),
      payload_cols_(std::move(payload_cols)),
      parts_(threads) {}

void JoinHashTable::Add(int thread, const DataChunk& chunk) {
  Part& p = parts_[thread];
  Rows rows = chunk.rows();
  if (rows.count == 0) return;
  size_t w = enc_.words();
  size_t old = p.hashes.size();
  p.keys.resize((old + rows.count) * w);
  p.hashes.resize(old + rows.count);
  enc_.Encode(chunk, key_cols_, rows, &p.keys[old * w], &p.hashes[old]);
  for (uint32_t k = 0; k < rows.count; ++k) enc_.Own(&p.keys[(old + k) * w], p.arena.get());
  uint32_t done = 0;
  while (done < rows.count) {
    if (p.payload.empty() || p.payload.back().size() == kVectorSize) {
      p.payload.emplace_back(payload_types_);
    }
    DataChunk& out = p.payload.back();
    uint32_t take = std::min(kVectorSize - out.size(), rows.count - done);
    std::vector<uint32_t> sub(take);
    for (uint32_t k = 0; k < take; ++k) sub[k] = rows[done + k];
    for (size_t c = 0; c < payload_cols_.size(); ++c) {
      GatherRows(chunk.column(payload_cols_[c]), Rows{sub.data(), take}, &out.column(c), out.size(),
                 p.arena.get());
    }
    out.set_size(out.size() + take);
    done += take;
  }
  p.count += rows.count;
}

void JoinHashTable::Allocate() {
  uint64_t base = 0;
  for (Part& p : parts_) {
    p.base = base;
    base += p.count;
  }
  total_ = base;
  if (total_ >= kEnd) abort();  // build sides beyond 4G rows are not supported
  uint64_t cap = BucketCount(total_);
  mask_ = cap - 1;
  heads_.reset(new std::atomic<uint32_t>[cap]);
  for (uint64_t b = 0; b < cap; ++b) heads_[b].store(kEnd, std::memory_order_relaxed);
  entry_words_ = 2 + enc_.words();
  entries_.reset(new uint64_t[std::max<uint64_t>(total_, 1) * entry_words_]);
}

void JoinHashTable::Finalize(int thread) {
  std::call_once(allocated_, [&] { Allocate(); });
  Part& p = parts_[thread];
  size_t w = enc_.words();
  bool saw_null = false;
  for (uint64_t i = 0; i < p.count; ++i) {
    uint32_t row = static_cast<uint32_t>(p.base + i);
    uint64_t* e = &entries_[size_t{row} * entry_words_];
    e[0] = kEnd;
    e[1] = p.hashes[i];
    std::copy(&p.keys[i * w], &p.keys[(i + 1) * w], e + 2);
    if (KeyEncoder::HasNull(&p.keys[i * w])) {
      saw_null = true;
      continue;
    }
    std::atomic<uint32_t>& head = heads_[p.hashes[i] & mask_];
    uint32_t old = head.load(std::memory_order_relaxed);
    do {
      e[0] = old;
    } while (!head.compare_exchange_weak(old, row, std::memory_order_release,
                                         std::memory_order_relaxed));
  }
  std::vector<uint64_t>().swap(p.keys);
  std::vector<uint64_t>().swap(p.hashes);
  if (saw_null) has_null_key_.store(true, std::memory_order_relaxed);
}

size_t JoinHashTable::PartBytes(int thread) const {
  const Part& p = parts_[thread];
  size_t chunk = 0;
  for (const Type& t : payload_types_) {
    chunk += size_t{kVectorSize} * PhysicalWidth(PhysicalTypeOf(t)) + kVectorSize / 8;
  }
  return (p.keys.capacity() + p.hashes.capacity()) * sizeof(uint64_t) + p.payload.size() * chunk +
         p.arena->bytes();
}

size_t JoinHashTable::DirectoryBytes() const {
  uint64_t rows = 0;
  for (const Part& p : parts_) rows += p.count;
  return BucketCount(rows) * sizeof(uint32_t) +
         std::max<uint64_t>(rows, 1) * (2 + enc_.words()) * sizeof(uint64_t);
}

uint32_t JoinHashTable::PartOf(uint32_t row) const {
  size_t i = parts_.size() - 1;
  while (parts_[i].base > row || parts_[i].count == 0) --i;
  return static_cast<uint32_t>(i);
}

void JoinHashTable::GatherPayload(const uint32_t* rows, uint32_t n, uint32_t c, Vector* out,
                                  uint32_t out_offset) const {
  DispatchPhysical(out->physical(), [&]<typename T>() {
    T* o = out->mutable_data<T>() + out_offset;
    for (uint32_t k = 0; k < n; ++k) {
      if (rows[k] == kEnd) {  // outer join filler
        out->SetNull(out_offset + k, true);
        continue;
      }
      const Part& p = parts_[PartOf(rows[k])];
      uint64_t local = rows[k] - p.base;
      const Vector& v = p.payload[local / kVectorSize].column(c);
      uint32_t i = static_cast<uint32_t>(local % kVectorSize);
      o[k] = v.data<T>()[i];
      out->SetNull(out_offset + k, v.IsNull(i));
    }
  });
}

}  // namespace forktail
