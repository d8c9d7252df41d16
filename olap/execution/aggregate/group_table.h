// GroupTable: one hash table of groups and their aggregate states, the
// building block of every aggregation method (aggregator.h).
//
// Open addressing with linear probing over a bucket array of group ids;
// groups live densely (keys, hashes, states in parallel arrays) so merging
// and emitting scan arrays, not buckets. Not thread-safe: methods that share
// a table guard it (aggregator.cc).
//
// Per-group state, in 8-byte words, per aggregate:
//   COUNT(*) / COUNT(x)         [count]
//   SUM/AVG integer or DECIMAL  [sum lo][sum hi][count]   (int128: no overflow
//                                                          while summing)
//   SUM/AVG DOUBLE              [sum][count]
//   MIN/MAX fixed-width         [value][has]
//   MIN/MAX string              [ptr][len][has]          (bytes in the arena)
//   COUNT/SUM/AVG(DISTINCT x)   [set index]               (SUM/AVG: numeric x;
//                                                          summed at Emit)
//   string_agg / array_agg      [list index]             (olap/execution/aggregate/list_agg.h)
// SUM of integers yields BIGINT (22003 "bigint out of range" if the exact sum
// does not fit), of DECIMAL(p,s) DECIMAL(38,s) as DuckDB (22003 "numeric field
// overflow" past 38 digits), of DOUBLE DOUBLE. AVG of integers and DOUBLE
// yields DOUBLE, of DECIMAL(p,s) DECIMAL(P,s') with P = 18 for a narrow input
// (p <= 18) and 38 for a wide one, s' = min(P-(p-s), max(s,6)), rounded half
// away from zero. Wide inputs: SUM/AVG states are [sum lo][sum hi][count] as
// for narrow ones, MIN/MAX [lo][hi][has], DISTINCT sets keep 16-byte strings. SUM/AVG/MIN/MAX of no
// non-NULL rows are NULL. SUM/AVG (DISTINCT x) have SUM/AVG's result types and sum each distinct
// value once (DOUBLE: -0 and 0 are one value).
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "olap/common/key_encoder.h"
#include "olap/execution/aggregate/list_agg.h"
#include "olap/expression/aggregates.h"

namespace forktail {

struct AggregateSpec {
  AggKind kind = AggKind::kCountStar;
  uint32_t input = 0;  // input column (not for COUNT(*))
  Type input_type;
  ListAggOrder order;     // kStringAgg / kArrayAgg: ORDER BY the value
  std::string separator;  // kStringAgg
};

Type AggregateResultType(const AggregateSpec& spec);

class GroupTable {
 public:
  static constexpr uint32_t kNoGroup = UINT32_MAX;

  GroupTable(const KeyEncoder* keys, const std::vector<AggregateSpec>* aggs);

  // Finds or inserts the group of each of n encoded keys; groups[k] is its
  // id. Stops inserting new groups beyond max_groups (those rows get
  // kNoGroup). Returns the number of rows left without a group.
  uint32_t FindOrInsert(const uint64_t* keys, const uint64_t* hashes, uint32_t n, uint32_t* groups,
                        uint32_t max_groups = kNoGroup);
  // Applies the rows' values to their groups' states (groups[k] for rows[k],
  // kNoGroup rows skipped). `inputs[a]` is the chunk column of aggregate a.
  void Update(const DataChunk& chunk, const std::vector<uint32_t>& inputs, Rows rows,
              const uint32_t* groups);
  // Update for a table with no key columns (a global aggregate): every row
  // is the one group's, so there is nothing to hash, find or sort.
  void UpdateGlobal(const DataChunk& chunk, const std::vector<uint32_t>& inputs, Rows rows);
  // Folds group g of src into this table (inserting its key if new).
  void Merge(const GroupTable& src, uint32_t g);
  // Appends all groups as rows of chunks (key columns, then one column per
  // aggregate), filling out's last chunk first when it has room.
  void Emit(std::vector<DataChunk>* out) const;
  // For a global aggregate over no rows: one group with empty states.
  void EnsureEmptyGroup();

  uint32_t size() const { return static_cast<uint32_t>(hashes_.size()); }
  // Heap bytes held (arrays by capacity, strings, COUNT DISTINCT sets
  // estimated per element), for the query's memory charge.
  size_t bytes() const;
  uint64_t hash(uint32_t g) const { return hashes_[g]; }
  void Clear();

 private:
  // Update's path for few groups: by_group_ holds the chunk's rows ordered by
  // group, group g's at [group_start_[g], group_start_[g + 1]).
  static constexpr uint32_t kFewGroups = 64;
  static constexpr uint32_t kFewGroupsMinRows = 256;
  void SortByGroup(Rows rows, const uint32_t* groups);
  // Applies one aggregate by group; false if its kind has no such path
  // (only COUNT and integer / DECIMAL SUM and AVG: DOUBLE sums keep row order).
  bool UpdateByGroup(const AggregateSpec& spec, const Vector* v, uint32_t off);
  // Update's row-by-row path for aggregate a.
  void UpdateAggregate(size_t a, const DataChunk& chunk, const std::vector<uint32_t>& inputs,
                       Rows rows, const uint32_t* groups);
  uint32_t Insert(const uint64_t* key, uint64_t hash);
  void Grow();
  void AddDistinct(uint64_t set, uint64_t value);
  void AddDistinct(uint64_t set, std::string value);
  uint64_t* State(uint32_t g) { return &states_[size_t{g} * state_words_]; }
  const uint64_t* State(uint32_t g) const { return &states_[size_t{g} * state_words_]; }

  const KeyEncoder* enc_;
  const std::vector<AggregateSpec>* aggs_;
  std::vector<uint32_t> offsets_;  // state word offset per aggregate
  uint32_t state_words_ = 0;
  std::vector<uint32_t> buckets_;
  uint64_t mask_ = 0;
  std::vector<uint64_t> keys_;
  std::vector<uint64_t> hashes_;
  std::vector<uint64_t> states_;
  // Made on first use, as the buckets are: a query's Aggregator has 64
  // partition tables and one per thread, most of which stay empty.
  mutable std::unique_ptr<StringArena> arena_;
  StringArena* Arena() const {
    if (!arena_) arena_ = std::make_unique<StringArena>();
    return arena_.get();
  }
  std::vector<std::unordered_set<uint64_t>> distinct_;       // non-string inputs
  std::vector<std::unordered_set<std::string>> distinct_s_;  // string inputs
  // Running totals of the sets' sizes, so that bytes() (asked per input
  // chunk) does not walk every set or string.
  size_t distinct_elements_ = 0;
  size_t distinct_strings_ = 0;
  size_t distinct_string_heap_ = 0;   // string bytes beyond the inline buffer
  std::vector<ListAggValues> lists_;  // string_agg / array_agg
  std::vector<uint32_t> by_group_, group_start_;
  std::vector<uint32_t> zeros_;  // UpdateGlobal's groups for UpdateAggregate
};

}  // namespace forktail
