// The build side of an index join (physical_scan.h, "Index joins"): a hash
// join's build collects its distinct keys while it consumes its input, and
// once it finished publishes them in a JoinKeySlot, unless there were more
// than the slot's max_keys. The probe side's scan then reads only the rows
// one index probe per key finds.
//
// Collecting stops (and nothing is published) as soon as a worker slot has
// seen more than max_keys distinct keys, or more than kRowsPerKey * max_keys
// rows: a big build costs a few comparisons per chunk, not a copy of its keys.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/execution/operator/physical_scan.h"

namespace forktail {

class JoinKeyCollector {
 public:
  static constexpr size_t kRowsPerKey = 8;

  JoinKeyCollector(std::shared_ptr<JoinKeySlot> slot, std::vector<uint32_t> key_cols, int threads);

  // Thread `thread` collects the keys of chunk's live rows.
  void Collect(int thread, const DataChunk& chunk);
  // Once every Collect call returned (one thread): fills and publishes the
  // slot when the keys are few enough.
  void Publish();

  // Bytes collected by `thread` (for the query's memory charge).
  size_t ThreadBytes(int thread) const;

 private:
  struct Part {
    std::unordered_set<std::string> seen;  // the keys' text, to find repeats
    std::vector<std::vector<Value>> keys;
    size_t rows = 0;
    size_t bytes = 0;
  };
  std::shared_ptr<JoinKeySlot> slot_;
  std::vector<uint32_t> key_cols_;
  std::vector<Part> parts_;
  std::atomic<bool> too_many_{false};
};

}  // namespace forktail
