// Table::AddPrimaryKey and its undo (ALTER TABLE ... ADD PRIMARY KEY on a
// table that may already hold rows; see table.h).
#include <cassert>

#include <fmt/format.h>

#include "storage/error.h"
#include "storage/table/table.h"

namespace forktail {

void Table::AddPrimaryKey(const std::vector<ColumnId>& key) {
  assert(!has_key() && !key.empty());
  // 23502 first, as PostgreSQL (it sets the columns NOT NULL before it builds
  // the index): the first key column, in key order, that holds a NULL.
  for (ColumnId c : key) {
    bool has_null = false;
    ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
      for (uint32_t r = 0; r < view.row_count() && !has_null; r++) {
        if (!view.is_deleted(r) && block->GetCell(c, SlotNo(r)).is_null()) has_null = true;
      }
    });
    if (has_null) {
      throw DbError(sqlstate::kNotNullViolation,
                    fmt::format("column \"{}\" of relation \"{}\" contains null values",
                                schema_.column(c).name, schema_.name));
    }
  }
  // The ordered index first, checking for a duplicate with it; nothing
  // changes until it is complete (a block that is not in memory may stop
  // the walk: tiering/buffer_pool.h), then the key index from it.
  OrderedIndex order = MakeIndex(key);
  std::optional<std::vector<Value>> duplicate;
  ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
    for (uint32_t r = 0; r < view.row_count() && !duplicate; r++) {
      if (view.is_deleted(r)) continue;
      const TupleId tid{block->block_no(), SlotNo(r)};
      std::vector<Value> values;
      for (ColumnId c : key) values.push_back(block->GetCell(c, tid.slot));
      const OrderedIndex::Key encoded = order.EncodeKey(values);
      if (order.FindOther(encoded, tid)) {
        duplicate = std::move(values);
      } else {
        order.Insert(encoded, tid);
      }
    }
  });
  if (duplicate) {
    // PostgreSQL's DETAIL line travels in the message, as COPY's CONTEXT does.
    throw DbError(sqlstate::kUniqueViolation,
                  fmt::format("could not create unique index \"{}_pkey\"\nDETAIL:  Key {} is "
                              "duplicated.",
                              schema_.name, KeyText(key, *duplicate)));
  }
  schema_.primary_key = key;
  for (ColumnId c : key) schema_.columns[c.value()].not_null = true;
  secondary_.push_back(std::move(order));
  DropKeyIndex();  // built when a lookup asks for it
}

void Table::RemovePrimaryKey(const std::vector<bool>& not_null_before) {
  assert(not_null_before.size() == schema_.columns.size());
  if (key_order_index() != nullptr) secondary_.pop_back();
  schema_.primary_key.clear();
  for (size_t i = 0; i < schema_.columns.size(); i++) {
    schema_.columns[i].not_null = not_null_before[i];
  }
  DropKeyIndex();
}

}  // namespace forktail
