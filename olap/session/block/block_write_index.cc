#include "olap/session/block/block_write_index.h"

#include <algorithm>
#include <cassert>

#include "olap/session/block/optimistic_block.h"

namespace forktail {

void BlockWriteIndex::Add(size_t entry, const std::vector<TableId>& changed,
                          const StepFootprint& forecast) {
  newest_ = entry;
  newest_added_ = Added{};
  for (TableId t : changed) {
    // Rows only when the forecast names rows of it (a key prefix is a
    // read's: what a write changed is never narrowed by one).
    const bool named_rows = std::any_of(forecast.rows.begin(), forecast.rows.end(),
                                        [&](const auto& row) { return row.first == t; });
    if (!named_rows || !forecast.RowsOnly(t)) {
      whole_[t.value()].push_back(entry);
      newest_added_.whole.push_back(t.value());
      continue;
    }
    rows_of_table_[t.value()].push_back(entry);
    newest_added_.rows_of_table.push_back(t.value());
    for (const auto& row : forecast.rows) {
      if (row.first != t) continue;
      rows_[row].push_back(entry);
      newest_added_.rows.push_back(row);
    }
  }
}

void BlockWriteIndex::RemoveNewest(size_t entry) {
  if (entry != newest_) return;  // added nothing (it changed no table)
  auto take_back = [entry](auto& map, const auto& key) {
    auto it = map.find(key);
    if (it == map.end()) return;
    assert(!it->second.empty() && it->second.back() == entry);
    if (!it->second.empty() && it->second.back() == entry) it->second.pop_back();
    if (it->second.empty()) map.erase(it);
  };
  for (uint32_t t : newest_added_.whole) take_back(whole_, t);
  for (uint32_t t : newest_added_.rows_of_table) take_back(rows_of_table_, t);
  for (const auto& row : newest_added_.rows) take_back(rows_, row);
  newest_ = SIZE_MAX;
  newest_added_ = Added{};
}

template <typename Map, typename Key>
void BlockWriteIndex::Append(const Map& map, const Key& key, std::vector<size_t>* out) {
  auto it = map.find(key);
  if (it != map.end()) out->insert(out->end(), it->second.begin(), it->second.end());
}

void BlockWriteIndex::ReachingTable(TableId table, std::vector<size_t>* out) const {
  Append(whole_, table.value(), out);
  Append(rows_of_table_, table.value(), out);
}

void BlockWriteIndex::ReachingRow(TableId table, const std::string& key,
                                  std::vector<size_t>* out) const {
  Append(whole_, table.value(), out);
  Append(rows_, std::make_pair(table, key), out);
}

void BlockWriteIndex::ReachingPrefix(TableId table, const std::string& prefix,
                                     std::vector<size_t>* out) const {
  Append(whole_, table.value(), out);
  for (auto it = rows_.lower_bound(std::make_pair(table, prefix));
       it != rows_.end() && it->first.first == table &&
       it->first.second.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    out->insert(out->end(), it->second.begin(), it->second.end());
  }
}

void BlockWriteIndex::Reaching(const StepFootprint& footprint, std::vector<size_t>* out) const {
  for (TableId t : footprint.tables) ReachingTable(t, out);
  for (const auto& [table, key] : footprint.rows) ReachingRow(table, key, out);
  for (const auto& [table, prefix] : footprint.prefixes) ReachingPrefix(table, prefix, out);
}

}  // namespace forktail
