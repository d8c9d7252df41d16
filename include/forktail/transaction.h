// Transaction: what a stored procedure sees while it runs on the transaction
// thread. Every read and write of table data goes through it.
//
// Execution model: the transaction thread runs one transaction at a time, so a
// procedure never sees another transaction's partial work and no latch or lock
// guards a tuple; transactions are serializable by construction. A procedure
// must not block (no waiting on other transactions or the network): while it
// runs, no other transaction does.
//
// Every change is applied to the tables at once and recorded twice:
//  - an undo entry (the exact inverse, table.h), so that Abort(), a thrown
//    DbError (a constraint violation, a bad cast, ...) or any other exception
//    rolls the whole transaction back, index entries included;
//  - a redo record (recovery/redo_codec.h), buffered and appended to the
//    write-ahead log together with the commit record when the procedure
//    returns. A rolled-back transaction logs nothing.
//
// Foreign keys (TableSchema::foreign_keys) are enforced here, on every write
// of any caller, as PostgreSQL enforces non-deferrable ones: a write notes
// what it puts at stake (a referencing row inserted or its key changed; a
// referenced row deleted or its key changed) and, when the statement ends,
// the notes are handled in order. A referencing key must be present in the
// referenced table (23503 `insert or update on table "c" violates foreign
// key constraint "c_p_fkey"`, DETAIL `Key (p)=(5) is not present in table
// "p".`); a referenced key that went away gets its constraint's action:
// NO ACTION and RESTRICT refuse while a row still references it (23503
// `update or delete on table "p" violates foreign key constraint "c_p_fkey"
// on table "c"`, DETAIL `Key (id)=(1) is still referenced from table "c".`;
// NO ACTION not when the statement put the key back), CASCADE deletes the
// referencing rows or gives them the new key, SET NULL / SET DEFAULT set
// their columns. Actions write through this transaction (logged, undone),
// and their writes note their own checks, handled after the ones before
// them, so cascades go as deep as they need and a cascade that reaches a
// RESTRICT fails. Lookups go through the referenced table's primary key or
// unique index, and through an index of the referencing table whose leading
// columns are the foreign key's, else a scan of it.
// A statement is what lies between BeginStatement and EndStatement (the SQL
// front end brackets each statement); outside them each Insert, Update and
// Delete is a statement of its own. A failing statement takes back its own
// changes before it throws.
//
// DDL runs here too. CreateTable is visible at once (undo drops it); DropTable
// hides the table for the rest of the transaction and really drops it at
// commit, because a dropped Table cannot be brought back. Limitation: a table
// dropped in a transaction cannot be re-created under the same name in the
// same transaction (42P07).
//
// Not thread-safe: only the transaction thread calls it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "forktail/log_position.h"
#include "storage/storage.h"

namespace forktail {

// An explicit abort requested by a procedure (Transaction::Abort).
class TransactionAborted : public DbError {
 public:
  explicit TransactionAborted(std::string reason)
      : DbError(sqlstate::kTransactionRollback, std::move(reason)) {}
};

// What an SQL front end adds to the writes that foreign-key actions make:
// what the transaction alone cannot evaluate (Transaction::BeginStatement).
class StatementHooks {
 public:
  virtual ~StatementHooks() = default;
  // The value `column`'s DEFAULT expression gives (ON ... SET DEFAULT of a
  // column whose default is not a constant NULL or an identity).
  virtual Value ColumnDefault(const Table& table, ColumnId column) = 0;
  // Called with each row an action is about to update (CASCADE, SET NULL,
  // SET DEFAULT), in full and as it will be; throws to refuse it (CHECK).
  virtual void CheckUpdatedRow(const Table& table, const Row& row) = 0;
};

class Transaction {
 public:
  using NamedUpdates = std::vector<std::pair<std::string, Value>>;
  using Key = std::vector<Value>;
  // Scan callback: return false to stop.
  using ScanFn = std::function<bool(TupleId, const Row&)>;

  Transaction(Catalog* catalog, wal::TxnId id) : catalog_(catalog), id_(id) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  wal::TxnId id() const { return id_; }

  // The table, for reads (schema, statistics, LookupKey, Read). Throws 42P01.
  const Table& GetTable(std::string_view name) const;
  // The same, nullptr for a table that does not exist or that this
  // transaction dropped.
  const Table* FindTable(std::string_view name) const { return LiveTable(name); }

  // Inserts a row (values are cast to the column types). Throws 23505 on a
  // duplicate key, 23502 on a NULL in a NOT NULL column, 42601 on a wrong
  // number of values, 22xxx on a bad value.
  TupleId Insert(std::string_view table, const Row& row);

  // Point lookup by primary key.
  std::optional<TupleId> Find(std::string_view table, const Key& key) const;
  std::optional<Row> Get(std::string_view table, const Key& key) const;
  std::optional<Row> Read(std::string_view table, TupleId tid) const;

  // Sets columns of a live row; returns its (possibly new) tuple id. Throws
  // 42703 for an unknown column name, 22023 for a row that is not live.
  TupleId Update(std::string_view table, TupleId tid, const Table::ColumnUpdates& updates);
  TupleId Update(std::string_view table, TupleId tid, const NamedUpdates& updates);
  // By primary key; false if no row has the key.
  bool UpdateByKey(std::string_view table, const Key& key, const NamedUpdates& updates);

  void Delete(std::string_view table, TupleId tid);
  bool DeleteByKey(std::string_view table, const Key& key);

  // Visits the live rows present when the scan starts, in tuple-id order.
  // The callback may change the table; rows it inserts are not visited.
  void Scan(std::string_view table, const ScanFn& fn) const;

  // Brackets a statement (see the header comment): foreign keys are checked,
  // and their actions run, at EndStatement, which throws their errors after
  // undoing what the statement did. `hooks` (may be null: then SET DEFAULT
  // of a column with a DEFAULT expression is 0A000, and rows written by
  // actions are not checked) must live until EndStatement. Statements nest:
  // only the outermost EndStatement checks. StatementScope is the RAII form.
  void BeginStatement(StatementHooks* hooks = nullptr);
  void EndStatement();
  class StatementScope {
   public:
    StatementScope(Transaction& txn, StatementHooks* hooks) : txn_(txn) {
      txn.BeginStatement(hooks);
    }
    ~StatementScope() {
      if (!ended_) txn_.AbandonStatement();
    }
    StatementScope(const StatementScope&) = delete;
    StatementScope& operator=(const StatementScope&) = delete;
    void End() {
      ended_ = true;
      txn_.EndStatement();
    }

   private:
    Transaction& txn_;
    bool ended_ = false;
  };

  TableId CreateTable(TableSchema schema, TableOptions options = {});
  // 2BP01 while a foreign key of another table that stays references it
  // (drop that table first, or its constraint).
  void DropTable(std::string_view name);
  // ALTER TABLE ... ADD PRIMARY KEY (Catalog::AddPrimaryKey: checks every row,
  // builds the index); logged as a kCreateIndex record, undone by removing
  // the key again.
  void AddPrimaryKey(std::string_view table, const std::vector<ColumnId>& key);
  // CREATE [UNIQUE] INDEX (Catalog::AddIndex: builds it, checks uniqueness)
  // and DROP INDEX (42704 if there is no such index); logged, undone.
  void CreateIndex(std::string_view table, IndexDef index);
  void DropIndex(std::string_view index_name);
  // Sequences (storage/table/sequence.h). Creating, altering and dropping
  // one is DDL: logged, undone (CreateSequence: 42P07 if the name is taken).
  // NextVal and SetVal move its state as PostgreSQL's nextval and setval
  // do: logged with the transaction, and not taken back by a rollback (a
  // failed transaction's sequence states are logged on their own,
  // kept_redo(), so a value handed out is never handed out again, even
  // after a restart). A DiscardOnReturn dry run is the exception: it gives
  // its values back, so that the run again at COMMIT draws the same ones.
  // 42P01 for an id that names no sequence (a dropped one).
  TableId CreateSequence(SequenceDef def, SequenceState state);
  void DropSequence(TableId id);
  void AlterSequence(TableId id, SequenceDef def, SequenceState state);
  int64_t NextVal(TableId id);                             // 2200H at the limit without CYCLE
  void SetVal(TableId id, int64_t value, bool is_called);  // 22003 out of bounds
  const Sequence& GetSequence(TableId id) const;

  // SAVEPOINT, between statements: a mark that RollbackToSavepoint takes the
  // transaction back to, undoing every change made since, DDL included. As
  // in PostgreSQL, sequence values handed out meanwhile stay used.
  struct Savepoint {
    size_t undo = 0;
    size_t redo = 0;
  };
  Savepoint SetSavepoint();
  void RollbackToSavepoint(const Savepoint& savepoint) noexcept;

  // How many changes this transaction has made so far, and the tables that
  // the changes after such a mark touched (each once, with DDL's tables and
  // both ids of a rewritten table): which tables a statement wrote.
  size_t change_mark() const { return undo_.size(); }
  std::vector<TableId> TablesChangedSince(size_t mark) const;
  // ALTER TABLE that changes columns (Catalog::RewriteTable: a new table of
  // `schema` filled from the old one's rows as `sources` says; its errors
  // too) or only names and attributes (Catalog::ReplaceSchema); logged
  // (kAlterTable), undone.
  void RewriteTable(std::string_view table, TableSchema schema,
                    const std::vector<ColumnSource>& sources);
  void ReplaceSchema(std::string_view table, TableSchema schema);
  // ALTER TABLE ... ADD FOREIGN KEY: every row is checked first (23503 with
  // PostgreSQL's message for the first one that violates it), then the
  // constraint is added (Catalog::AddForeignKey and its errors); logged,
  // undone. The referenced table must not be one this transaction dropped.
  void AddForeignKey(std::string_view table, ForeignKeyDef fk);
  // ALTER TABLE ... DROP CONSTRAINT of a foreign key or a CHECK constraint;
  // 42704 `constraint "n" of relation "t" does not exist` for another name.
  // Logged, undone. The caller checks what depends on it.
  void DropConstraint(std::string_view table, std::string_view name);
  // TRUNCATE: deletes every row, logged and undone as deletes, with no
  // foreign-key checks or actions: the caller truncates every table that
  // references this one too (or refuses).
  void Truncate(std::string_view table);
  // CREATE VIEW / DROP VIEW (Catalog::CreateView, DropView); logged, undone.
  // The caller checks what depends on a view before dropping it.
  void CreateView(ViewDef view);
  void DropView(std::string_view name);

  // Rolls the transaction back; the submitter gets SQLSTATE 40000 and `reason`.
  [[noreturn]] void Abort(std::string reason);

  // Adds a row to the transaction's result (returned only if it commits).
  void Emit(Row row) { output_.push_back(std::move(row)); }

  // A dry run: when the body returns, every change is undone and nothing is
  // logged, and the submitter gets ok (with what was Emit()ted) at once, even
  // if a commit it read is not durable yet: its result is a forecast that
  // only a later real transaction may act on, and that one waits (TxnEngine,
  // "Dry runs"). The statements of an optimistic transaction block run so:
  // against committed state plus the block's own writes, which are then taken
  // back; the block's COMMIT runs them again for real.
  void DiscardOnReturn() { discard_on_return_ = true; }
  bool discard_on_return() const { return discard_on_return_; }

  // The submitter gets the result as soon as the transaction is applied and
  // its commit record appended, before the log is durable through it; the
  // result's `durable_lsn` says through where, and the submitter must
  // Database::WaitDurable(durable_lsn) before it tells anyone the outcome.
  // What a session's pipelined autocommit statements use, so that they share
  // one log flush (group commit inside a pipeline).
  void AcknowledgeWhenApplied() { acknowledge_when_applied_ = true; }
  bool acknowledge_when_applied() const { return acknowledge_when_applied_; }

  // --- used by the transaction engine ---
  struct Redo {
    wal::RecordType type;
    std::string payload;
  };
  const std::vector<Redo>& redo() const { return redo_; }
  // After a Rollback (not a dry run's): the states of the sequences the
  // transaction moved, to be logged although it failed.
  const std::vector<Redo>& kept_redo() const { return kept_redo_; }
  std::vector<Row>& output() { return output_; }
  // Undoes every change, newest first. Never throws (a failing undo aborts the
  // process: memory would no longer match the log).
  void Rollback() noexcept;
  // After the commit record was appended: performs the deferred drops.
  void FinishCommit();

 private:
  enum class UndoKind {
    kInsert,
    kUpdateInPlace,
    kUpdateMoved,
    kDelete,
    kCreateTable,
    kDropTable,
    kAddPrimaryKey,
    kCreateIndex,
    kDropIndex,
    kCreateView,
    kDropView,
    kRewriteTable,   // table: the old table; new_table: its replacement
    kReplaceSchema,  // schema_before: what it was
    kAddForeignKey,
    kDropForeignKey,  // the definition: dropped_foreign_keys_.back()
    kDropCheck,       // the definition: dropped_checks_.back()
    kCreateSequence,  // table: the sequence
    kDropSequence,    // sequence: what it was
    kAlterSequence,   // sequence: what it was
    kSequenceState,   // table: the sequence; state_before
  };
  // What undoing a schema change needs beyond its table: kept apart, so
  // that the undo entry of a row write stays small (it was 352 bytes; a
  // block of 10,000 inserts grew and moved 3.5 MB of undo at COMMIT).
  struct SchemaUndo {
    std::vector<bool> not_null_before;                 // kAddPrimaryKey
    size_t index_position = 0;                         // kCreateIndex, kDropIndex, constraints
    IndexDef index;                                    // kDropIndex
    ViewDef view;                                      // kCreateView (its name), kDropView
    TableId new_table;                                 // kRewriteTable
    std::shared_ptr<const TableSchema> schema_before;  // kReplaceSchema
    std::shared_ptr<const Sequence> sequence;          // kDropSequence, kAlterSequence
    SequenceState state_before;                        // kSequenceState
  };
  struct Undo {
    UndoKind kind;
    TableId table;
    TupleId tid;
    TupleId new_tid;
    Table::ColumnUpdates old_values;
    std::unique_ptr<SchemaUndo> schema_change;  // schema changes only

    SchemaUndo& change() {
      if (!schema_change) schema_change = std::make_unique<SchemaUndo>();
      return *schema_change;
    }
  };

  // A foreign-key check a write put at stake (txn/foreign_keys.cc).
  struct ForeignKeyEvent {
    enum class Kind : uint8_t {
      kCheckReference,     // `table`'s row `tid` must find its key in the referenced table
      kReferencedDeleted,  // `table` lost `old_key`; `referencing` may still use it
      kReferencedUpdated,  // `table`'s `old_key` became `new_key`
    };
    Kind kind;
    TableId table;
    TableId referencing;  // the table holding the foreign key (= table for kCheckReference)
    size_t position = 0;  // the foreign key's position in referencing's foreign_keys
    TupleId tid;
    std::vector<Value> old_key, new_key;  // the referenced columns' values
  };

  Table& Writable(std::string_view name) const;
  Table::ColumnUpdates Resolve(const Table& t, const NamedUpdates& updates) const;
  void CheckLive(const Table& t, TupleId tid) const;
  void AbandonStatement();
  // Undoes every change after the first `undo_size` undo entries, newest
  // first, and drops the redo records after the first `redo_size`.
  void UndoTo(size_t undo_size, size_t redo_size) noexcept;
  void DeleteRow(Table& t, TupleId tid);
  // Foreign keys (txn/foreign_keys.cc): whether writes to `t` note checks;
  // the notes of an insert, an update (`before`: the row as it was) and a
  // delete; after a write outside a statement, its checks (undone with the
  // write on error, from the marks taken before it).
  static bool InForeignKey(const Table& t);
  void NoteInsert(const Table& t, TupleId tid);
  void NoteUpdate(const Table& t, const Row& before, TupleId new_tid);
  void NoteDelete(const Table& t, const Row& before);
  void FinishWrite(size_t undo_size, size_t redo_size);
  void RunForeignKeyChecks();
  void CheckReference(const ForeignKeyEvent& e);
  void ReferencedKeyGone(const ForeignKeyEvent& e);
  // A table an action or a check may use: nullptr if it is gone or dropped by
  // this transaction.
  Table* LiveTable(TableId id) const;
  Table* LiveTable(std::string_view name) const;

  Catalog* catalog_;
  wal::TxnId id_;
  std::vector<Undo> undo_;
  std::vector<Redo> redo_;
  std::vector<Redo> kept_redo_;
  std::vector<TableId> moved_sequences_;  // by NextVal / SetVal, in order
  std::vector<Row> output_;
  std::set<TableId> dropped_;
  std::vector<ForeignKeyDef> dropped_foreign_keys_;  // for kDropForeignKey undo entries
  std::vector<CheckDef> dropped_checks_;             // for kDropCheck undo entries
  std::vector<ForeignKeyEvent> fk_events_;
  int statement_depth_ = 0;
  StatementHooks* hooks_ = nullptr;
  // Where the current statement's undo and redo begin: undone to on error.
  size_t statement_undo_ = 0;
  size_t statement_redo_ = 0;
  // Undo entries below this index are never extended (Insert merges a row
  // into the previous insert entry), so that undoing to a mark is exact.
  size_t undo_floor_ = 0;
  bool discard_on_return_ = false;
  bool acknowledge_when_applied_ = false;
};

// The outcome of one transaction.
struct TxnResult {
  bool ok = true;
  std::string sqlstate;                    // empty when ok
  std::string message;                     // empty when ok
  std::vector<Row> rows;                   // what the body Emit()ted (only when committed)
  wal::Lsn commit_lsn = wal::kInvalidLsn;  // kInvalidLsn for read-only or failed ones
  // Transaction::AcknowledgeWhenApplied: the log must be durable through this
  // LSN before the outcome is reported (kInvalidLsn: it already is, or no
  // wait was deferred).
  wal::Lsn durable_lsn = wal::kInvalidLsn;

  static TxnResult Error(std::string sqlstate, std::string message) {
    TxnResult r;
    r.ok = false;
    r.sqlstate = std::move(sqlstate);
    r.message = std::move(message);
    return r;
  }
  // Throws the error as a DbError (for callers that prefer exceptions).
  void ThrowIfError() const;
};

using TxnBody = std::function<void(Transaction&)>;
using TxnCallback = std::function<void(TxnResult)>;

// The transaction thread's busy time and how long it has existed (both since
// the database opened); busy / alive is its utilization.
struct TxnThreadTime {
  uint64_t busy_ns = 0;
  uint64_t alive_ns = 0;
};

}  // namespace forktail
