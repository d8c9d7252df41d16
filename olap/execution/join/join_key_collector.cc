#include "olap/execution/join/join_key_collector.h"

#include "olap/execution/operator/physical_chunk_block.h"

namespace forktail {
namespace {

// Separates a key's values in its text (a repeat has the same text).
constexpr char kSeparator = '\x1f';

}  // namespace

JoinKeyCollector::JoinKeyCollector(std::shared_ptr<JoinKeySlot> slot,
                                   std::vector<uint32_t> key_cols, int threads)
    : slot_(std::move(slot)), key_cols_(std::move(key_cols)), parts_(threads) {}

void JoinKeyCollector::Collect(int thread, const DataChunk& chunk) {
  if (too_many_.load(std::memory_order_relaxed)) return;
  Part& p = parts_[thread];
  const size_t max_keys = slot_->max_keys;
  bool stop = false;
  ForEachRow(chunk.rows(), [&](uint32_t row) {
    if (stop) return;
    if (++p.rows > kRowsPerKey * max_keys) {
      stop = true;
      return;
    }
    std::vector<Value> key;
    std::string text;
    for (uint32_t c : key_cols_) {
      key.push_back(VectorValue(chunk.column(c), row));
      if (key.back().is_null()) return;  // matches nothing
      text += key.back().ToString();
      text += kSeparator;
    }
    if (!p.seen.insert(text).second) return;
    p.bytes += 2 * text.size() + 64 + 32 * key.size();
    p.keys.push_back(std::move(key));
    stop = p.keys.size() > max_keys;
  });
  if (stop) too_many_.store(true, std::memory_order_relaxed);
}

void JoinKeyCollector::Publish() {
  if (too_many_.load(std::memory_order_relaxed)) return;
  std::unordered_set<std::string> seen;
  std::vector<std::vector<Value>> keys;
  for (Part& p : parts_) {
    for (std::vector<Value>& key : p.keys) {
      std::string text;
      for (const Value& v : key) text += v.ToString() + kSeparator;
      if (seen.insert(std::move(text)).second) keys.push_back(std::move(key));
    }
    p = Part{};
  }
  if (keys.size() > slot_->max_keys) return;
  slot_->keys = std::move(keys);
  slot_->published = true;
}

size_t JoinKeyCollector::ThreadBytes(int thread) const { return parts_[thread].bytes; }

}  // namespace forktail
