// Catalog: the database's tables by name and by id. It owns the Table objects
// (schema + data); CreateTable validates a schema before a table exists.
//
// Names are compared exactly as stored (the SQL parser folds case first).
// A Table& stays valid until DropTable of that table.
// Table ids start at 1 and are never reused, even after DROP TABLE, so a
// TableId in a WAL record or a block header names one table forever.
//
// Serialize() writes the schemas (not the data) and the id counter for a
// checkpoint; Deserialize() restores them into an empty catalog, as empty
// tables whose blocks the recovery code then loads.
//
//   +-------+---------+--------------+-------------+---------+-----+--------+
//   | magic | version | next_tableid | table count | table 1 | ... | crc32c |
//   | u32   | u32     | u32          | u32         |         |     | u32    |
//   +-------+---------+--------------+-------------+---------+-----+--------+
//   table:  id u32 | name | max_rows_per_block u32 | column count u16 | columns |
//           key column count u16 | key column ids u16... |
//           index count u16 | indexes (version 2 and later) |
//           last value i64 per identity column (Table::identity_value: the counter
//           of a column made before sequences; 0 once it has its sequence) |
//           check count u16 | (name | sql)... (version 3 and later) |
//           foreign key count u16 | foreign keys (version 4 and later)
//   column: name | type id u8 | precision u8 | scale u8 | length u32 | not_null u8 |
//           default (version 3 and later; empty: none) | identity u8 (version 3)
//   then (version 3 and later) view count u32 | views
//   then (version 5 and later) sequence count u32 | sequences
//   view:   name | sql | column count u16 | (name | type id u8 | precision u8 | scale u8 |
//           length u32)... | dependency count u16 | names...
//   sequence: id u32 | name | type id u8 | start i64 | increment i64 | min i64 | max i64 |
//           cache i64 | cycle u8 | owner table id u32 (0: none) | owner column | identity u8 |
//           last_value i64 | is_called u8
//   index:  name | flags u8 (1 unique, 2 constraint) | column count u16 | column ids u16...
//   foreign key: name | referenced table name | column count u16 |
//           (column id u16 | referenced column id u16)... | on delete u8 | on update u8 |
//           flags u8 (1 MATCH FULL) | delete-set column count u16 | column ids u16...
//   name:   length u32 | bytes
// Integers little-endian; the CRC32C (masked) covers every byte before it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/status.h"
#include "storage/table/sequence.h"
#include "storage/table/table.h"

namespace forktail {

inline constexpr uint32_t kCatalogMagic = 0x47435446;  // "FTCG"
inline constexpr uint32_t kCatalogFormatVersion = 6;   // 6: comments
inline constexpr size_t kMaxColumns = 1600;            // PostgreSQL's limit

// Where a rewritten table (ALTER TABLE ADD / DROP COLUMN, ALTER COLUMN TYPE)
// gets one of its columns' values for each row of the old table.
struct ColumnSource {
  enum class Kind : uint8_t {
    kColumn = 0,    // the old row's `column`, cast to the new column's type
    kConstant = 1,  // `constant` in every row (ADD COLUMN: its DEFAULT, or NULL)
    kIdentity = 2,  // 1, 2, 3, ... in tuple-id order (ADD COLUMN ... SERIAL / IDENTITY)
  };
  Kind kind = Kind::kConstant;
  ColumnId column;
  Value constant;

  static ColumnSource Column(ColumnId c) { return {Kind::kColumn, c, Value()}; }
  static ColumnSource Constant(Value v) { return {Kind::kConstant, ColumnId(), std::move(v)}; }
  static ColumnSource Identity() { return {Kind::kIdentity, ColumnId(), Value()}; }
};

// A view (CREATE VIEW): its query as SQL text, bound again wherever the view
// is read; its columns as CREATE VIEW bound them; and the relations (tables
// and views) the query reads, which cannot be dropped while it exists.
struct ViewDef {
  std::string name;
  std::string sql;
  std::vector<std::string> column_names;
  std::vector<Type> column_types;
  std::vector<std::string> depends_on;

  friend bool operator==(const ViewDef&, const ViewDef&) = default;
};

// While one is installed on a thread, every table that thread looks up
// (FindTable, GetTable) is noted: an optimistic block's step learns from it
// which tables a statement read (olap/session/block/optimistic_block.h).
// Nests: the innermost recorder notes.
class TableLookupRecorder {
 public:
  explicit TableLookupRecorder(std::vector<TableId>* into) : previous_(current_) {
    current_ = into;
  }
  ~TableLookupRecorder() { current_ = previous_; }
  TableLookupRecorder(const TableLookupRecorder&) = delete;
  TableLookupRecorder& operator=(const TableLookupRecorder&) = delete;

  static void Note(TableId id) {
    if (current_) current_->push_back(id);
  }

 private:
  static thread_local std::vector<TableId>* current_;
  std::vector<TableId>* previous_;
};

class Catalog {
 public:
  Catalog() = default;
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // Throws DbError: 42P07 the name is taken, 42701 duplicate column name,
  // 42P16 bad primary key (unknown or repeated column), 54000 too many columns,
  // 42P16 / 42P01 / 42830 a foreign key whose columns or referenced table or
  // key do not exist (the SQL binder has checked them with PostgreSQL's
  // messages; these guard the other callers).
  // `id`: the next table id (0), or the id replay read from the log (ids
  // between the last one and it went to CREATE TABLEs that rolled back);
  // XX000 if that id is taken (below the next id).
  Table& CreateTable(TableSchema schema, TableOptions options = {}, TableId id = TableId(0));
  // Throws 42P01 `table "t" does not exist`.
  void DropTable(std::string_view name);
  // A table the open transaction dropped (it goes at commit, Transaction::
  // DropTable) no longer holds its name, nor its indexes' names: FindTable,
  // ListTables and FindIndex skip it, and a new relation may take the name
  // in the same transaction (DROP TABLE t; CREATE TABLE t ...). Unhide
  // (the drop undone) gives the names back; DropHidden removes it.
  void HideTable(TableId id);
  void UnhideTable(TableId id);
  void DropHidden(TableId id);

  // ALTER TABLE ... ADD PRIMARY KEY (Table::AddPrimaryKey, its errors too);
  // 42P16 `multiple primary keys for table "t" are not allowed` if it has one,
  // 42P16 for a key of unknown or repeated columns.
  void AddPrimaryKey(TableId id, const std::vector<ColumnId>& key);
  // Undo of AddPrimaryKey.
  void RemovePrimaryKey(TableId id, const std::vector<bool>& not_null_before);

  // ALTER TABLE that changes columns (ADD / DROP COLUMN, ALTER COLUMN TYPE):
  // a new table with `schema` (the old one's name and options; the next
  // table id, or `id` when replay gives it) holding every live row of the old
  // table in tuple-id order, each column filled as `sources` says (one per
  // new column). Table ids are never reused, so nothing written for the old
  // table (log records, checkpoint images) can be taken for the new one.
  // Every row is built and checked before the catalog changes: 23502
  // `column "c" of relation "t" contains null values`, cast errors (22xxx,
  // e.g. 22001 for a VARCHAR too short), 23505 from a key or unique index.
  // The old table is detached, not destroyed: UndoRewrite puts it back,
  // FinishRewrite (at commit) frees it. Returns the new table's id. O(rows).
  // Sequences owned by a column of the old table follow the column to the
  // new one (and back on undo); the caller drops those of dropped columns
  // first.
  TableId RewriteTable(TableId old, TableSchema schema, const std::vector<ColumnSource>& sources,
                       TableId id = TableId(0));
  void UndoRewrite(TableId new_id, TableId old_id);
  void FinishRewrite(TableId old_id);
  // ALTER TABLE that changes no column's type or position (RENAME [COLUMN],
  // SET / DROP DEFAULT, SET / DROP NOT NULL, CHECK texts after a rename): the
  // table's schema becomes `schema`, which must have the same columns' types,
  // key and indexes; returns the old schema (its undo). A new table name must
  // be free (42P07). A column that becomes NOT NULL is checked first: 23502
  // `column "c" of relation "t" contains null values`. Sequences owned by a
  // renamed column stay owned by it.
  TableSchema ReplaceSchema(TableId id, TableSchema schema);

  // CREATE INDEX (Table::AddIndex, its errors too); 42P07 if a table or
  // index already has the name.
  void AddIndex(TableId id, IndexDef def);
  // DROP INDEX of the table's index at `position`; returns its definition.
  IndexDef DropIndex(TableId id, size_t position);
  // Undo of DropIndex.
  void RestoreIndex(TableId id, size_t position, IndexDef def);
  // ALTER TABLE ... ADD FOREIGN KEY (the caller has checked the existing
  // rows) and DROP CONSTRAINT of a foreign key or a CHECK constraint, by
  // position; Restore* are their undo. 42710 if the table already has a
  // constraint of that name; the errors of CreateTable for a bad definition.
  void AddForeignKey(TableId id, ForeignKeyDef def);
  ForeignKeyDef DropForeignKey(TableId id, size_t position);
  void RestoreForeignKey(TableId id, size_t position, ForeignKeyDef def);
  CheckDef DropCheck(TableId id, size_t position);
  void RestoreCheck(TableId id, size_t position, CheckDef def);

  // PostgreSQL's name for an index or sequence it names itself (its
  // ChooseRelationName): "<table>_<col>[_<col>...]_<suffix>" ("idx" for
  // CREATE INDEX, "key" for UNIQUE, "seq" for SERIAL and identity columns),
  // with 1, 2, ... appended to the suffix until no relation and no name in
  // `taken` has it; the table and column parts are shortened to fit 63 bytes
  // as PostgreSQL's makeObjectName shortens them.
  std::string ChooseIndexName(const std::string& table, const std::vector<std::string>& columns,
                              const std::string& suffix,
                              const std::vector<std::string>& taken = {}) const;
  // The same for a constraint ("fkey" for FOREIGN KEY): unique among the
  // constraint names of every table (ConstraintNameExists) and `taken`, as
  // PostgreSQL's ChooseConstraintName.
  std::string ChooseConstraintName(const std::string& table,
                                   const std::vector<std::string>& columns,
                                   const std::string& suffix,
                                   const std::vector<std::string>& taken = {}) const;
  // Whether a table has a constraint of this name: primary key ("<t>_pkey"),
  // UNIQUE, CHECK or FOREIGN KEY.
  bool ConstraintNameExists(std::string_view name) const;
  // The table's constraint names, in PostgreSQL's order of listing them.
  static std::vector<std::string> ConstraintNames(const TableSchema& schema);
  // CREATE VIEW (42P07 if a table, index or view has the name) and DROP VIEW
  // (42P01 if there is none; returns it). The caller checks dependencies.
  void CreateView(ViewDef view);
  ViewDef DropView(std::string_view name);
  const ViewDef* FindView(std::string_view name) const;
  // The views, by name.
  const std::map<std::string, ViewDef, std::less<>>& views() const { return views_; }
  // The views whose query reads `relation` (a table or view name).
  std::vector<std::string> DependentViews(std::string_view relation) const;

  // Sequences (sequence.h): relations named among the tables, indexes and
  // views (42P07), with ids from the table id counter (or `id` when replay
  // gives it), so an id names one table or sequence forever. CreateSequence
  // checks that an owner names a live table (else XX000). ReplaceSequence
  // (ALTER SEQUENCE) returns the old one, its undo; a new name must be free.
  // SetSequenceState (nextval, setval) is not a schema change: it leaves
  // schema_version() alone.
  TableId CreateSequence(SequenceDef def, SequenceState state, TableId id = TableId(0));
  Sequence DropSequence(TableId id);
  void RestoreSequence(Sequence sequence);  // undo of DropSequence
  Sequence ReplaceSequence(TableId id, SequenceDef def, SequenceState state);
  void SetSequenceState(TableId id, SequenceState state);
  const Sequence* FindSequence(std::string_view name) const;
  const Sequence* GetSequence(TableId id) const;  // nullptr if none has the id
  const std::map<TableId, Sequence>& sequences() const { return sequences_; }
  // The sequences OWNED BY a column of `table` (every column when `column`
  // is empty), by id.
  std::vector<TableId> OwnedSequences(TableId table, std::string_view column = {}) const;
  // The sequence of an identity column; nullptr for a column made before
  // sequences existed (Database::Open gives those theirs).
  const Sequence* IdentitySequence(TableId table, std::string_view column) const;
  // The foreign keys (of any table) that find `table`'s rows through its
  // secondary index at `position`: without it they would have no unique key.
  std::vector<ForeignKeyRef> ForeignKeysUsingIndex(TableId table, size_t position) const;

  // The table and position of the secondary index with this name.
  std::optional<std::pair<TableId, size_t>> FindIndex(std::string_view name) const;

  // Changes with every schema change (table, view or sequence created,
  // altered or dropped, key or index added or removed), so the transaction engine knows when to
  // publish a new copy.
  uint64_t schema_version() const { return schema_version_; }
  // The same table ids, schemas and id counter, and no rows: what binding a
  // statement needs. Immutable once published, so any thread can bind
  // against it while the transaction thread changes the live catalog.
  std::unique_ptr<Catalog> CopySchemas() const;

  // nullptr if there is no such table.
  Table* FindTable(std::string_view name) const;
  // Throws 42P01 if the id names no (live) table.
  Table& GetTable(TableId id) const;
  // nullptr if the id names no table (hidden ones included); not recorded
  // as a lookup (TableLookupRecorder): the engine's own bookkeeping.
  Table* FindTableById(TableId id) const;
  // Ids of the tables, ascending.
  std::vector<TableId> ListTables() const;
  size_t size() const { return tables_.size(); }

  // Where every table of this catalog reads the image of a block that is
  // not in memory (block_directory.h): the buffer pool's reader, or a
  // snapshot process's own after the fork. Not owned.
  // Const: the reader is shared state of the tables (a snapshot process
  // sets its own in the frozen catalog it reads).
  void SetBlockImageReader(BlockImageReader* reader) const;
  BlockImageReader* block_image_reader() const { return pool_->reader.load(); }
  // The budget the tables' scans of many blocks keep to (Table::
  // ForEachBlock drops what it loaded once over it); the buffer pool's.
  void SetBlockBudget(int64_t bytes) const { pool_->budget_bytes = bytes; }
  int64_t block_budget() const { return pool_->budget_bytes.load(); }
  // The bytes the resident blocks of every table take (block_directory.h).
  int64_t resident_block_bytes() const { return pool_->resident_bytes.load(); }

  std::string Serialize() const;
  // Into an empty catalog; Corruption on any mismatch, the catalog unchanged.
  Status Deserialize(std::string_view bytes);

 private:
  static void Validate(const TableSchema& schema);
  // A table of this catalog (attached to pool_).
  std::unique_ptr<Table> NewTable(TableId id, TableSchema schema, TableOptions options) const;
  // A foreign key of `schema` (a table being created, or one that exists):
  // its referenced table exists (or is `schema` itself), with the columns
  // and a unique key on them.
  void ValidateReferences(const TableSchema& schema, const ForeignKeyDef& fk) const;
  // Recomputes every table's referenced_by() after foreign keys changed.
  void RefreshReferences();
  // 42P07 when a table or an index is named `name`.
  void CheckRelationNameFree(std::string_view name) const;

  uint32_t next_table_id_ = 1;
  uint64_t schema_version_ = 0;
  std::map<TableId, std::unique_ptr<Table>> tables_;
  // Tables a rewrite replaced in a transaction not yet finished (RewriteTable).
  std::map<TableId, std::unique_ptr<Table>> rewritten_;
  std::map<std::string, TableId, std::less<>> by_name_;
  std::set<TableId> hidden_;  // HideTable
  std::map<std::string, ViewDef, std::less<>> views_;
  std::map<TableId, Sequence> sequences_;
  std::shared_ptr<BlockPoolShared> pool_ = std::make_shared<BlockPoolShared>();
};

}  // namespace forktail
