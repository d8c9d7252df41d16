#include "olap/execution/join/join_hash_table.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "olap/expression/kernels.h"

namespace forktail {

namespace {
// Blocks of a partition while it is built grow up to this; larger ones are
// mmap'ed by malloc and so return to the system when Finalize frees them.
constexpr size_t kMaxBlockBytes = 256 * 1024;

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
      parts_(threads) {
  // Payload bytes after the key words, widest columns first so that each
  // value sits at a multiple of its width, then one NULL bit per column.
  std::vector<uint32_t> order(payload_types_.size());
  for (uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  auto width = [&](uint32_t c) { return PhysicalWidth(PhysicalTypeOf(payload_types_[c])); };
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return width(x) > width(y); });
  uint32_t at = (2 + enc_.words()) * sizeof(uint64_t);
  payload_at_.resize(payload_types_.size());
  for (uint32_t c : order) {
    payload_at_[c] = at;
    at += width(c);
  }
  nulls_at_ = at;
  at += static_cast<uint32_t>((payload_types_.size() + 7) / 8);
  entry_words_ = (at + sizeof(uint64_t) - 1) / sizeof(uint64_t);
  max_block_rows_ = std::max<uint32_t>(64, kMaxBlockBytes / (entry_words_ * sizeof(uint64_t)));
}

void JoinHashTable::Add(int thread, const DataChunk& chunk) {
  Part& p = parts_[thread];
  Rows rows = chunk.rows();
  if (rows.count == 0) return;
  const size_t w = enc_.words();
  p.keys.resize(size_t{rows.count} * w);
  p.hashes.resize(rows.count);
  enc_.Encode(chunk, key_cols_, rows, p.keys.data(), p.hashes.data());
  p.dest.resize(rows.count);
  for (uint32_t k = 0; k < rows.count; ++k) {
    if (p.blocks.empty() || p.blocks.back().used == p.blocks.back().capacity) {
      uint32_t capacity =
          p.blocks.empty() ? 64 : std::min(max_block_rows_, p.blocks.back().capacity * 2);
      p.blocks.push_back(
          {std::unique_ptr<uint64_t[]>(new uint64_t[size_t{capacity} * entry_words_]), capacity});
    }
    Part::Block& block = p.blocks.back();
    uint64_t* e = &block.entries[size_t{block.used++} * entry_words_];
    p.dest[k] = e;
    e[0] = kEnd;
    e[1] = p.hashes[k];
    std::copy(&p.keys[k * w], &p.keys[(k + 1) * w], e + 2);
    enc_.Own(e + 2, p.arena.get());
    std::fill(e + 2 + w, e + entry_words_, 0);
  }
  for (size_t c = 0; c < payload_cols_.size(); ++c) {
    const Vector& v = chunk.column(payload_cols_[c]);
    const uint32_t at = payload_at_[c];
    const uint32_t null_byte = nulls_at_ + static_cast<uint32_t>(c / 8);
    const uint8_t null_bit = static_cast<uint8_t>(1u << (c % 8));
    DispatchPhysical(v.physical(), [&]<typename T>() {
      const T* d = v.data<T>();
      for (uint32_t k = 0; k < rows.count; ++k) {
        auto* e = reinterpret_cast<uint8_t*>(p.dest[k]);
        if (v.IsNull(rows[k])) {
          e[null_byte] |= null_bit;
          continue;
        }
        T x = d[rows[k]];
        if constexpr (std::is_same_v<T, std::string_view>) x = p.arena->AddReusing(x);
        std::memcpy(e + at, &x, sizeof(T));
      }
    });
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
  entries_.reset(new uint64_t[std::max<uint64_t>(total_, 1) * entry_words_]);
}

void JoinHashTable::Finalize(int thread) {
  std::call_once(allocated_, [&] { Allocate(); });
  Part& p = parts_[thread];
  bool saw_null = false;
  uint64_t row = p.base;
  // Block by block: move the entries, free the block, link the rows while
  // they are in cache.
  for (Part::Block& block : p.blocks) {
    uint64_t* e = &entries_[row * entry_words_];
    std::copy(block.entries.get(), block.entries.get() + size_t{block.used} * entry_words_, e);
    block.entries.reset();
    for (uint32_t i = 0; i < block.used; ++i, ++row, e += entry_words_) {
      if (KeyEncoder::HasNull(e + 2)) {
        saw_null = true;
        continue;
      }
      std::atomic<uint32_t>& head = heads_[e[1] & mask_];
      uint32_t old = head.load(std::memory_order_relaxed);
      do {
        e[0] = old;
      } while (!head.compare_exchange_weak(old, static_cast<uint32_t>(row),
                                           std::memory_order_release, std::memory_order_relaxed));
    }
  }
  std::vector<Part::Block>().swap(p.blocks);
  std::vector<uint64_t>().swap(p.keys);
  std::vector<uint64_t>().swap(p.hashes);
  std::vector<uint64_t*>().swap(p.dest);
  if (saw_null) has_null_key_.store(true, std::memory_order_relaxed);
}

size_t JoinHashTable::PartBytes(int thread) const {
  const Part& p = parts_[thread];
  size_t entries = 0;
  for (const Part::Block& b : p.blocks) entries += b.entries ? b.capacity : 0;
  return entries * entry_words_ * sizeof(uint64_t) +
         (p.keys.capacity() + p.hashes.capacity() + p.dest.capacity()) * sizeof(uint64_t) +
         p.arena->bytes();
}

size_t JoinHashTable::DirectoryBytes() const {
  uint64_t rows = 0;
  for (const Part& p : parts_) rows += p.count;
  return BucketCount(rows) * sizeof(uint32_t) +
         std::max<uint64_t>(rows, 1) * entry_words_ * sizeof(uint64_t);
}

void JoinHashTable::GatherPayload(const uint32_t* rows, uint32_t n, uint32_t c, Vector* out,
                                  uint32_t out_offset) const {
  const uint32_t at = payload_at_[c];
  const uint32_t null_byte = nulls_at_ + c / 8;
  const uint8_t null_bit = static_cast<uint8_t>(1u << (c % 8));
  DispatchPhysical(out->physical(), [&]<typename T>() {
    T* o = out->mutable_data<T>() + out_offset;
    for (uint32_t k = 0; k < n; ++k) {
      if (rows[k] == kEnd) {  // outer join filler
        o[k] = T();
        out->SetNull(out_offset + k, true);
        continue;
      }
      const auto* e = reinterpret_cast<const uint8_t*>(Entry(rows[k]));
      std::memcpy(static_cast<void*>(&o[k]), e + at, sizeof(T));
      out->SetNull(out_offset + k, (e[null_byte] & null_bit) != 0);
    }
  });
}

}  // namespace forktail
