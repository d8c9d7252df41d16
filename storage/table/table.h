// Table: rows of one schema, stored in 2 MiB blocks reached only through the
// table's BlockDirectory, with a primary-key hash index and statistics.
//
// Indexes. The primary key has an ordered index (a prefix of the key, a
// range, key order: what applications and TPC-C drivers ask of PostgreSQL's
// btree primary keys, and uniqueness), and a hash index over the same
// columns for point lookups, built when they are asked for (below).
// Secondary indexes (CREATE INDEX, UNIQUE) are ordered. The ordered indexes
// live in secondary_: schema().indexes' in their positions, then the primary
// key's; every write path keeps them all exact.
//
// The key hash index is an accelerator, held only by tables whose keys are
// looked up. A table starts without it (created, loaded from a checkpoint,
// rewritten): lookups and unique checks go through the ordered index (a
// descent; an insert past the largest key, as a load in key order makes,
// needs none, and a load without the hash index is ~1.4x as fast). The first
// point lookup (LookupKey: a point SELECT or UPDATE, a foreign key's check,
// a stored procedure's Find) asks for it, and the transaction thread builds
// it from the ordered index between two transactions (BuildKeyIndexIfWanted,
// called by the engine) when the table has at most kKeyIndexBuildLimit keys,
// so that the build never holds the thread for long (~0.1 s per Mi keys,
// storage_table_bench); from then on every write keeps it exact. A larger
// table keeps using the ordered index (~0.5 us a lookup instead of ~0.25).
// A table bulk-loaded and only scanned (TPC-H's lineitem: 81 MiB of hash
// index at SF1) never holds one.
//
// Tuple ids. A row's TupleId is (block, slot). Inserts append to the tail
// block; when it is full (rows reach capacity, or its heap cannot take the
// row's strings) a new block is started. Updates are in place, except in a
// frozen block (block.h), whose updated rows move to the tail; deletes set the
// slot's delete bit. Deleted slots are never reused, so a TupleId names one
// row version for the table's lifetime (undo records, WAL records and
// snapshots can rely on that). Freezing compresses a block but keeps every
// slot, deleted ones too.
//
// Block capacity. A new block's capacity follows the strings the table really
// stores: the heap bytes per row reserved for it are the live rows' string
// bytes per live row in the block before it, plus 3%,
// and the schema's guess (block_layout.h) while there is no such row, or when
// the first row's strings would not fit. The inputs are the live rows (values
// and delete bits) and the first row, never heap offsets or timing: those are
// the same when the WAL is replayed (aborted transactions leave only deleted
// slots, and a block an aborted transaction started is dropped by its undo),
// so replay starts each block with the capacity the original run gave it.
// Checkpoint images carry their capacity; LoadBlock rebuilds their layout.
//
// Errors. Every check (column count, casts to the column types, NOT NULL,
// unique key, row size) happens before anything changes, so a statement that
// fails leaves the table exactly as it was.
//
// Undo and redo. The transaction engine undoes with exact inverses and the
// WAL redoes with exact replays (replay reproduces identical tuple ids):
//   Insert(row) -> tid             undo: RemoveInserted(tid)    redo: InsertAt(tid, row)
//   Delete(tid)                    undo: Undelete(tid)          redo: Delete(tid)
//   Update(tid, cols) -> tid       undo: Update(tid, old values of cols)
//                                  redo: RedoUpdate(tid, cols, returned tid)
//   Update that relocated (returned new_tid != tid):
//                                  undo: RemoveInserted(new_tid); Undelete(tid)
//                                  (the old slot still holds the old values)
// RemoveInserted of the newest row of the tail block gives the slot back (and
// drops a block it leaves empty), so an insert undone leaves no trace; any
// other slot becomes a deleted one. InsertAt accepts a slot past the block's
// end, filling the gap with deleted slots, so replay that skips aborted
// inserts still lands on the logged tids.
//
// Threads: mutated only by the transaction thread; readers in snapshot
// processes see a forked copy.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "storage/table/block_directory.h"
#include "storage/table/hash_index.h"
#include "storage/table/ordered_index.h"
#include "storage/table/schema.h"
#include "storage/table/statistics.h"

namespace forktail {

struct TableOptions {
  // Caps the rows per block (0: as many as fit). A test knob for small blocks.
  uint32_t max_rows_per_block = 0;
};

// A foreign key that references a table: the referencing table and the
// constraint's position in its schema's foreign_keys.
struct ForeignKeyRef {
  TableId table;
  size_t position = 0;

  friend bool operator==(const ForeignKeyRef&, const ForeignKeyRef&) = default;
};

class Table {
 public:
  using ColumnUpdates = std::vector<std::pair<ColumnId, Value>>;

  // The schema must be valid (the Catalog checks it).
  Table(TableId id, TableSchema schema, TableOptions options = {});

  TableId id() const { return id_; }
  const TableSchema& schema() const { return schema_; }
  const TableOptions& options() const { return options_; }
  // The layout from the schema's guess: the column types are every block's,
  // offsets and capacity are not (use the block's own layout for those).
  const BlockLayout& layout() const { return *layout_; }

  // Casts each value to its column's type (Value::CastTo) and appends the row.
  // Throws DbError: 42601 wrong number of values, cast errors (22xxx), 23502
  // NULL in a NOT NULL or key column, 23505 duplicate key, 54000 row too big.
  TupleId Insert(const Row& row);
  // Redo of an insert: the same as Insert, at the given tid (see above).
  // XX000 for a tid no run could have produced (a taken slot, one past the
  // block's capacity or room, a block more than 16 past the last).
  void InsertAt(TupleId tid, const Row& row);

  // nullopt for a deleted slot or a tid out of range.
  std::optional<Row> Read(TupleId tid) const;
  // `row` as an insert would store it: each value cast to its column's type,
  // 23502 for a NULL in a NOT NULL or key column, 42601 for a wrong width.
  Row CastRow(const Row& row) const;
  // Calls fn for each live row in tuple-id order (the rows present when it
  // starts; fn must not change the table).
  void ForEachLiveRow(const std::function<void(TupleId, const Row&)>& fn) const;
  // Whether a live row holds NULL in `column`.
  bool HasNull(ColumnId column) const;
  // ALTER TABLE that keeps every column's type and position (rename, default,
  // NOT NULL; Catalog::ReplaceSchema checks and logs it): the schema becomes
  // `schema`. Throws 42P16 if the column types, key or indexes differ.
  void ReplaceSchema(TableSchema schema);
  std::optional<Value> ReadColumn(TupleId tid, ColumnId column) const;
  bool IsLive(TupleId tid) const;
  // The block of a live tuple, pinned; empty when the tuple is not live.
  BlockRef PinLive(TupleId tid) const;

  // Sets the given columns of a live row. In place when the new strings fit
  // the block's heap (compacting it if that helps); otherwise the row moves to
  // the tail block and its new tid is returned. Key changes keep the index
  // right; a duplicate key throws 23505 before anything changes.
  TupleId Update(TupleId tid, const ColumnUpdates& updates);
  // Redo of an Update that returned `result`: in place if result == tid,
  // otherwise the row moves to exactly `result`. Replay cannot rely on
  // Update's own choice, because heap space left by aborted transactions
  // differs between the original run and the replay.
  void RedoUpdate(TupleId tid, const ColumnUpdates& updates, TupleId result);
  // Deletes a live row: sets the delete bit, removes its index entry.
  void Delete(TupleId tid);

  // Undo primitives (see the header comment).
  void Undelete(TupleId tid);
  void RemoveInserted(TupleId tid);

  // The live row with this primary key (values are cast to the key types).
  // nullopt if none, if a key value is NULL, or if the table has no key.
  // Without a key hash index, asks for one (see "Indexes" above).
  std::optional<TupleId> LookupKey(const std::vector<Value>& key) const;

  // The key hash index (see "Indexes" above). Transaction thread only,
  // between transactions: builds it if a lookup asked for it and the table
  // has at most `max_keys` keys; true if it did.
  static constexpr size_t kKeyIndexBuildLimit = size_t{2} << 20;  // ~0.2 s to build
  bool BuildKeyIndexIfWanted(size_t max_keys = kKeyIndexBuildLimit);
  // Builds it now, whatever the size (tests, benchmarks).
  void BuildKeyIndex();
  // Drops it: lookups go through the ordered index until one asks again.
  void DropKeyIndex();
  bool key_index_built() const { return key_index_built_; }
  // Counts tables that asked for their key index (process-wide): the engine
  // looks for them only when it has changed.
  static uint64_t KeyIndexRequests();

  // ALTER TABLE ... ADD PRIMARY KEY on a table without one (the caller checks
  // 42P16 and the columns): every live row is checked, then the index is
  // built and the key columns become NOT NULL. Throws before changing
  // anything: 23502 `column "c" of relation "t" contains null values`, 23505
  // `could not create unique index "t_pkey"` with a DETAIL line naming the
  // first duplicated key found. O(rows); the transaction thread runs it.
  void AddPrimaryKey(const std::vector<ColumnId>& key);
  // Undo of AddPrimaryKey: no key, the columns' NOT NULL flags as they were.
  void RemovePrimaryKey(const std::vector<bool>& not_null_before);

  // CREATE [UNIQUE] INDEX (the caller checks the name and the columns): the
  // index is built from the live rows and appended to schema().indexes.
  // Throws before changing anything: 23505 `could not create unique index
  // "i"` with a DETAIL line naming the first duplicated key found.
  void AddIndex(IndexDef def);
  // DROP INDEX: removes schema().indexes[position]; returns its definition.
  IndexDef DropIndex(size_t position);
  // Undo of DropIndex: the index rebuilt at its old position.
  void RestoreIndex(size_t position, IndexDef def);

  // ALTER TABLE ADD / DROP CONSTRAINT of the constraints that hold no data
  // (the Catalog checks the lists).
  void SetChecks(std::vector<CheckDef> checks) { schema_.checks = std::move(checks); }
  void SetForeignKeys(std::vector<ForeignKeyDef> foreign_keys) {
    schema_.foreign_keys = std::move(foreign_keys);
  }
  // The foreign keys, of any table, that reference this one, in table id and
  // constraint order. Derived from the schemas; the Catalog keeps it current.
  const std::vector<ForeignKeyRef>& referenced_by() const { return referenced_by_; }
  void SetReferencedBy(std::vector<ForeignKeyRef> refs) { referenced_by_ = std::move(refs); }

  // The live rows an index lookup finds (see IndexRange; the values must be
  // of the key columns' types), in key order; nullopt when there are more
  // than `limit`. The caller still checks its full condition on each row.
  std::optional<std::vector<TupleId>> ProbeIndex(const IndexRange& range, size_t limit) const;
  const OrderedIndex& secondary_index(size_t position) const { return secondary_[position]; }
  // The primary key's ordered index; null without a primary key.
  const OrderedIndex* key_order_index() const {
    return secondary_.size() > schema_.indexes.size() ? &secondary_.back() : nullptr;
  }

  // The last value an identity column handed out (0: none yet; the first is
  // 1, as a fresh sequence's). Set by Transaction::NextIdentity (logged,
  // undone), by replay and by a checkpoint load.
  int64_t identity_value(ColumnId column) const;
  void SetIdentityValue(ColumnId column, int64_t value);

  // Freezing (block.h, "Frozen blocks"): walks the blocks from block
  // `*cursor` on and freezes each plain one but the tail that is idle (no
  // change since the previous walk took its touched flag) or, with
  // `idle_only` false, any; pinned blocks are left for a later walk. Stops
  // after freezing `limit` blocks; *cursor is then where to go on, and
  // block_count() once the walk is through. Returns the blocks frozen.
  size_t FreezeBlocks(bool idle_only, size_t limit, uint32_t* cursor,
                      const FreezeOptions& options = {});
  // FreezeBlocks in three steps, so that the encoding (milliseconds per
  // block) runs off the transaction thread (Database::FreezeBlocks):
  //  1. TakeFreezeCandidates (transaction thread): the walk above, taking
  //     each chosen block's touched flag and returning a copy of it;
  //  2. Block::Freeze of each copy, on any thread;
  //  3. InstallFrozen (transaction thread): the frozen copy takes its
  //     block's place unless the block was written since step 1 (its
  //     touched flag is set again), frozen, or is pinned; false then, and
  //     the block stays as it is for a later walk.
  struct FreezeCandidate {
    BlockNo no;
    std::unique_ptr<Block> copy;
  };
  std::vector<FreezeCandidate> TakeFreezeCandidates(bool idle_only, size_t limit, uint32_t* cursor);
  bool InstallFrozen(BlockNo no, std::unique_ptr<Block> frozen);

  // Calls fn for each block in block order, with the block pinned (a frozen
  // block's view is that of a thawed copy).
  void ForEachBlock(const std::function<void(const BlockRef&, const BlockReadView&)>& fn) const;
  size_t block_count() const { return directory_.size(); }
  BlockRef PinBlock(BlockNo no) const { return directory_.Pin(no); }

  uint64_t live_row_count() const { return stats_.row_count(); }
  const TableStatistics& statistics() const { return stats_; }
  // Recomputes the statistics exactly in one scan.
  void RefreshStatistics();
  // Rebuilds the primary-key index from the live rows (after loading blocks).
  void RebuildIndex();

  // Recovery: appends the block re-created from an ExportImage() image. It
  // must be this table's next block (table id and block number checked), else
  // Corruption and nothing changes. Its rows go into the statistics and the
  // ordered indexes at once, while it is in memory: under a memory budget
  // the caller evicts it again, and a second pass would read every such
  // block back. After the last one, FinishLoading() completes the statistics
  // and rebuilds the primary key's hash index.
  Status LoadBlock(std::string_view image);
  // LoadBlock in two halves, so that a recovery decodes the next images on
  // another thread while this one indexes: DecodeImage may run on any one
  // thread at a time besides the table's own, since it reads only the
  // schema and the layout, which a load does not change (`layouts`: the
  // decoding thread's cache of layouts by capacity); LoadDecodedBlock
  // appends the result as LoadBlock does.
  using LayoutCache = std::map<uint32_t, std::shared_ptr<const BlockLayout>>;
  Status DecodeImage(std::string_view image, LayoutCache* layouts,
                     std::unique_ptr<Block>* out) const;
  Status LoadDecodedBlock(std::unique_ptr<Block> block);
  void FinishLoading();
  const HashIndex& index() const { return index_; }

  // Buffer pool (tiering/buffer_pool.h; block_directory.h "Residency"): the
  // blocks, and what the table shares with the catalog's other tables:
  // where a block that is not in memory is read back from (unset, such a
  // block cannot be loaded: XX000) and the count of resident bytes. Before
  // the first block.
  BlockDirectory& directory() { return directory_; }
  const BlockDirectory& directory() const { return directory_; }
  void AttachPool(std::shared_ptr<BlockPoolShared> pool) {
    assert(directory_.size() == 0);
    pool_ = std::move(pool);
    directory_.SetShared(pool_.get());
  }
  // Whether the catalog's resident blocks exceed its budget (block_
  // directory.h, BlockPoolShared): a walk that loaded blocks drops them
  // again, a load of many blocks evicts as it goes.
  bool OverBlockBudget() const {
    return pool_ && pool_->resident_bytes.load(std::memory_order_relaxed) >
                        pool_->budget_bytes.load(std::memory_order_relaxed);
  }
  // Block `no` (version `version`) from an evicted block's image, checked
  // to be that block (XX001 otherwise): what the directory's loader and the
  // transaction engine's loads install.
  std::unique_ptr<Block> EvictedBlockOfImage(BlockNo no, uint64_t version,
                                             std::string_view image) const;
  // The hash of the stored key of a row (tests check the key index with it).
  uint64_t KeyHashOfRow(TupleId tid) const { return StoredKeyHash(tid); }

 private:
  // A row cast to the column types and checked for insertion (NOT NULL, key
  // uniqueness, size): nothing has changed yet.
  struct CheckedRow {
    Row row;
    uint64_t key_hash;  // 0 when the table has no primary key or no key hash index
    // Per secondary index: the row's encoded key.
    std::vector<OrderedIndex::Key> index_keys;
  };
  using IndexKeys = std::vector<OrderedIndex::Key>;
  CheckedRow CheckInsert(const Row& row) const;
  // After the row was written at `tid`: its index entry and statistics.
  void FinishInsert(TupleId tid, const CheckedRow& checked);
  Value CastValue(ColumnId c, const Value& v) const;
  std::vector<Value> KeyOf(const Row& row) const;
  std::vector<Value> StoredKey(TupleId tid) const;
  uint64_t KeyHash(const std::vector<Value>& key) const;
  // KeyHash of the stored tuple's key, read from the block directly.
  uint64_t StoredKeyHash(TupleId tid) const;
  // The key index from the ordered primary-key index's entries (no block is
  // read); KeepKeyIndexRoom rebuilds it when it needs room, once a write's
  // changes to both are made.
  void RebuildKeyIndex();
  void KeepKeyIndexRoom();
  bool KeyEquals(TupleId tid, const std::vector<Value>& key) const;
  // `hash` (KeyHash of key) is read only when the key hash index is built.
  std::optional<TupleId> FindKey(const std::vector<Value>& key, uint64_t hash) const;
  // 23505 for a row whose `key` (the primary key's values) another row has,
  // with PostgreSQL's DETAIL line.
  [[noreturn]] void ThrowDuplicateKey(const std::vector<Value>& key) const;
  // "(a, b)=(1, x)": columns and values as PostgreSQL's key DETAIL lines show them.
  std::string KeyText(const std::vector<ColumnId>& columns, const std::vector<Value>& values) const;
  uint32_t StringBytes(const Row& row) const;
  void CheckRowSize(uint32_t string_bytes) const;
  // Appends an empty block whose layout suits the rows so far and a first row
  // with `first_row_string_bytes` of strings (see "Block capacity").
  void AddBlock(uint32_t first_row_string_bytes);
  std::shared_ptr<const BlockLayout> LayoutForNewBlock(uint32_t first_row_string_bytes);
  // An image's block (its capacity picks the layout: the table's, or one
  // made for it, not cached, so that loads on other threads share nothing
  // mutable); Corruption if it does not fit.
  Status BlockOfImage(std::string_view image, std::unique_ptr<Block>* out) const;
  // The directory's loader: version `summary.version` of block `no` through
  // the image reader. Throws DbError (XX000, XX001, 58030).
  std::unique_ptr<Block> LoadEvictedBlock(BlockNo no, const BlockSummary& summary) const;
  TupleId AppendRow(const Row& row);
  // Replay writes in place into a block that may be frozen: the plain form.
  void ThawBlock(BlockNo no);
  // Writes a cast row at exactly `tid` (redo), creating blocks and filling a
  // slot gap with deleted slots.
  void PlaceRow(TupleId tid, const Row& row);
  TupleId UpdateImpl(TupleId tid, const ColumnUpdates& updates, const TupleId* redo_result);
  void WriteRow(Block& block, SlotNo slot, const Row& row);
  bool has_key() const { return !schema_.primary_key.empty(); }

  // Ordered indexes (table_secondary_index.cc).
  OrderedIndex MakeIndex(const std::vector<ColumnId>& columns) const;
  // The columns of secondary_[i]: an index's, or the primary key's (last).
  const std::vector<ColumnId>& IndexColumns(size_t i) const {
    return i < schema_.indexes.size() ? schema_.indexes[i].columns : schema_.primary_key;
  }
  IndexKeys IndexKeysOf(const Row& row) const;
  IndexKeys StoredIndexKeys(TupleId tid) const;
  // 23505 if a unique index already holds `keys` for a row other than `self`
  // (indexes where only_changed is given and false are skipped).
  void CheckUniqueIndexes(const IndexKeys& keys, const Row& row, TupleId self,
                          const std::vector<bool>* only_changed = nullptr) const;
  void IndexRow(const IndexKeys& keys, TupleId tid);
  void UnindexRow(const IndexKeys& keys, TupleId tid);
  // Every live row of `block` (seen through `view`) into the ordered indexes.
  void IndexRows(const BlockRef& block, const BlockReadView& view);
  void RebuildSecondaryIndexes();
  // fn(block, its rows): a frozen block's through a thawed copy.
  static void WithRows(const BlockRef& block,
                       const std::function<void(const BlockRef&, const BlockReadView&)>& fn);

  TableId id_;
  TableSchema schema_;
  TableOptions options_;
  std::shared_ptr<const BlockLayout> layout_;
  LayoutCache layouts_;  // by capacity
  // Before directory_, so that it outlives it: the directory's destructor
  // takes its blocks' bytes off the shared count.
  std::shared_ptr<BlockPoolShared> pool_;
  BlockDirectory directory_;
  HashIndex index_;
  bool key_index_built_ = false;  // index_ holds every key (see "Indexes")
  // A lookup found no key hash index; set by readers (a snapshot's workers
  // too), read by the transaction thread.
  mutable std::atomic<bool> key_index_wanted_{false};
  // One per schema_.indexes entry, then the primary key's when it has one.
  std::vector<OrderedIndex> secondary_;
  std::map<uint16_t, int64_t> identity_values_;  // by column; absent: 0
  std::vector<ForeignKeyRef> referenced_by_;
  TableStatistics stats_;
  // Between the first LoadBlock and FinishLoading: the loaded blocks'
  // statistics so far.
  std::unique_ptr<StatisticsScan> loading_stats_;
};

}  // namespace forktail
