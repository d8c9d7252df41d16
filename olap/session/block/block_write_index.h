// BlockWriteIndex: which of an optimistic block's writing statements can
// reach what a new statement touches (optimistic_block.h, "Which earlier
// writes a step runs again"), found by table and by row instead of by
// walking the block.
//
// Why: a step asks this twice (which earlier writes to run again, and
// whether one it left out was reached after all). Walking every recorded
// statement made each step cost the length of the block, so a block of n
// inserts cost n^2 / 2 footprint comparisons: psycopg's executemany of 4,000
// rows inside a transaction (its default) ran at 9.5k rows/s against 18k for
// 1,000 rows. With the index a step costs what it reaches.
//
// An entry's changes reach a footprint as StepFootprint defines it: a table
// the entry changed as a whole reaches any footprint that touches the table
// at all; a table it changed in given rows only (its forecast names them)
// reaches a footprint that takes the whole table, one of those rows, or a
// key prefix of one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/ids.h"

namespace forktail {

struct StepFootprint;

class BlockWriteIndex {
 public:
  // Entry `entry` (newer than every entry added before) changed `changed`;
  // those of them `forecast` names only rows of changed only those rows.
  void Add(size_t entry, const std::vector<TableId>& changed, const StepFootprint& forecast);
  // Forgets `entry`, the newest added (a step taken back).
  void RemoveNewest(size_t entry);

  // Appends to `out` every added entry whose changes reach `footprint`, in
  // no particular order and possibly more than once.
  void Reaching(const StepFootprint& footprint, std::vector<size_t>* out) const;
  // The same for one table taken whole, and for one row.
  void ReachingTable(TableId table, std::vector<size_t>* out) const;
  void ReachingRow(TableId table, const std::string& key, std::vector<size_t>* out) const;
  // ... and for the rows whose encoded keys start with `prefix`.
  void ReachingPrefix(TableId table, const std::string& prefix, std::vector<size_t>* out) const;

 private:
  template <typename Map, typename Key>
  static void Append(const Map& map, const Key& key, std::vector<size_t>* out);

  // Per table: the entries that changed it as a whole, and those that
  // changed rows of it only. Per row: the entries that changed that row.
  std::unordered_map<uint32_t, std::vector<size_t>> whole_;
  std::unordered_map<uint32_t, std::vector<size_t>> rows_of_table_;
  // Ordered, so that the rows of a key prefix are a range.
  std::map<std::pair<TableId, std::string>, std::vector<size_t>> rows_;
  // What Add put where for the newest entry, so RemoveNewest can take it out.
  struct Added {
    std::vector<uint32_t> whole, rows_of_table;
    std::vector<std::pair<TableId, std::string>> rows;
  };
  size_t newest_ = SIZE_MAX;
  Added newest_added_;
};

}  // namespace forktail
