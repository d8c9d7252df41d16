// OptimisticBlock: a transaction block (BEGIN ... COMMIT from a network
// client) that never holds the transaction thread between its statements.
//
// Each statement runs as one short step on the transaction thread: the
// block's earlier writing statements are run again (re-applying the block's
// own writes to committed state), then the new statement runs and its result
// goes to the client, then every change of the step is undone
// (Transaction::DiscardOnReturn). The block keeps what it ran and a digest of
// each result the client saw; the data it wrote live nowhere but in that log.
// COMMIT is one transaction that runs every statement again, in order, and
// compares each result with the digest the client saw. All equal: it commits
// (logged and acknowledged as any transaction). One differs, or one now
// fails: nothing is applied and COMMIT fails with 40001.
//
// Why this is serializable: the committed transaction is exactly the block's
// statements run serially at COMMIT, on the one transaction thread. The
// client's choices (which statements, which parameters) can depend only on
// results it saw, and those are the results of that serial run, so the
// client behaved exactly as it would have if the whole block had run at the
// COMMIT point. Re-running covers everything a read depended on: row
// versions, and also phantoms (a predicate read that would now see an
// inserted row returns a different result). It is validation by
// re-execution: Silo and Hekaton validate read sets instead; re-execution
// needs no read-set bookkeeping in the storage layer and is exact.
//
// Order: a query without ORDER BY has no order, and a parallel scan returns
// its rows in an order that may differ from run to run; its result is
// compared as a multiset (the serial run at COMMIT could have returned the
// rows in the order the client saw). Rows with an ORDER BY are compared in
// order (rows that tie on the sort keys may still come out in another order:
// a spurious 40001, never a wrong commit).
//
// Row locks: SELECT ... FOR UPDATE / SHARE locks the rows it returns until
// the block ends (row_locks.h), so two blocks that read and then change the
// same row run one after the other instead of one failing at COMMIT.
//
// What conflicts: only a changed result. A blind write that commutes,
// `UPDATE t SET x = x + 1 WHERE k = 7`, returns "UPDATE 1" again however x
// changed meanwhile, so it never conflicts. A statement that reads a
// volatile value (clock_timestamp()) and returns it may fail validation
// spuriously; now() is fixed for the block (transaction time), and
// random() / gen_random_uuid() repeat their draws at every run (the
// session runs each statement in a random_source::ReplayScope of its own).
// nextval: a step gives the values it drew back (a dry run), so the run at
// COMMIT draws the same ones unless another transaction drew from the
// sequence meanwhile; a statement whose result shows such a value then
// fails validation (40001), one that only stores it commits with the new
// values (docs/client_contract.md).
//
// Which earlier writes a step runs again: only those it may see. A
// statement's step is a forecast of what the serial run at COMMIT will
// answer; COMMIT checks every forecast, so a step may leave out an earlier
// write that cannot change its answer. Each recorded statement keeps the
// tables its step looked up and changed (TableLookupRecorder,
// Transaction::TablesChangedSince); a new statement, whose tables the
// session takes from its bound plan (with the tables its foreign keys
// reach), runs again the earlier writes that changed one of them, and,
// transitively, those that changed a table such a write looked up. Rows
// narrow it: a write by primary key (UPDATE/DELETE whose WHERE fixes the
// key, INSERT of given rows, into a table without other unique indexes)
// changes only its rows, and a read or write by key touches only its row,
// so TPC-C's stock updates of different items do not re-run each other;
// a read of one table whose filter fixes a prefix of the key (TPC-C
// Delivery's SUM over one order's lines: KeyPrefixRead) reaches only the
// written rows whose keys start with it.
// If the new statement then looks up a table that a write left out changed
// (beyond the rows its forecast names), or fails, the step runs again with
// every earlier write: an error is final (the block fails), so it is never
// one a forecast produced.
//
// Cost: a step re-runs the block's earlier writing statements it depends on
// (TPC-C's New-Order: its 10-15 stock updates do not re-run its order
// insert), found through an index by table and row (block_write_index.h),
// so that a step does not cost the length of the block; COMMIT re-runs them all. Blocks in OLTP are
// a few statements, each microseconds on the thread, against a thread that would otherwise wait a
// client round trip per statement.
//
// Savepoints: SAVEPOINT, ROLLBACK TO and RELEASE are recorded in order with
// the statements, and every run replays them as marks of its transaction
// (Transaction::SetSavepoint, RollbackToSavepoint). The statements a
// ROLLBACK TO took back stay recorded: a step leaves them out (their writes
// are gone), COMMIT runs them again and checks what the client saw of them,
// then undoes them. A statement that fails while a savepoint is set is
// recorded with its error, and COMMIT checks that it still fails so: what
// the client learned from an error counts as a read too.
//
// Not thread-safe (one session); the steps run on the transaction thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "forktail/database.h"
#include "olap/session/block/block_write_index.h"
#include "olap/session/block/row_locks.h"
#include "olap/session/statement_result.h"

namespace forktail {

// One statement of a block: runs on the transaction thread in `txn` and
// returns what the client is sent. It runs again at COMMIT (and at later
// steps when it writes), after the session has moved on: it must own
// everything it refers to.
using BlockStatement = std::function<StatementResult(Transaction&)>;

// Process-wide totals (SHOW forktail.txn_block_stats).
struct OptimisticBlockStats {
  uint64_t commits = 0;                 // COMMITs that applied their writes
  uint64_t serialization_failures = 0;  // 40001 at a step or at COMMIT
  uint64_t steps = 0;                   // statements run as steps
  uint64_t reruns = 0;                  // statements run again (steps and COMMITs)
  uint64_t lock_waits = 0;              // FOR UPDATE / SHARE steps run again after a lock wait
};

// What a statement reads or writes, as a step's forecast needs it (see
// "Which earlier writes a step runs again"): tables as a whole, and tables
// of which it reaches only single rows, by primary key. A table in `rows`
// and not in `tables` is touched in those rows only.
struct StepFootprint {
  std::vector<TableId> tables;
  std::vector<std::pair<TableId, std::string>> rows;  // (table, encoded key)
  // (table, encoded key prefix): the rows whose keys start with it. Only a
  // read's (statement_tables.cc); a write names whole keys or tables.
  std::vector<std::pair<TableId, std::string>> prefixes;

  bool RowsOnly(TableId table) const;
  // Whether it touches `table` at all, or the row `key` of it.
  bool Touches(TableId table) const;
  bool TouchesRow(TableId table, const std::string& key) const;
};

// SKIP LOCKED: the rows a locking statement leaves out because another
// block holds them. The first run of each attempt to lock decides (asking
// `held_elsewhere`); every later run of the block -- the next steps' and
// COMMIT's -- leaves out the same rows, so that the statement's result stays
// what the client was given even after those locks are gone.
struct SkippedRows {
  bool decided = false;
  std::unordered_set<std::string> keys;
  std::function<bool(const std::string& key)> held_elsewhere;  // set by Run
};

// The row locks a step takes (SELECT ... FOR UPDATE / FOR SHARE;
// row_locks.h): each run of the statement fills `keys` with the keys of the
// rows it locks.
struct RowLockRequest {
  RowLockTable::Mode mode = RowLockTable::Mode::kExclusive;
  RowLockTable::WaitPolicy policy;
  std::string relation;  // for errors
  std::shared_ptr<std::vector<std::string>> keys = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<SkippedRows> skipped;  // SKIP LOCKED only
};

class OptimisticBlock {
 public:
  static OptimisticBlockStats GlobalStats();

  // `on_run`, when given, is called on the transaction thread at the start
  // of every run of the block (each step, Inspect, COMMIT), before any
  // statement runs again: session state that statements change (currval)
  // restarts there from where the block began, since the run rebuilds it.
  // `locks`: where the block's row locks live; it holds them until it is
  // destroyed (COMMIT, ROLLBACK, failure or disconnect all end there).
  OptimisticBlock(Database& db, RowLockTable& locks, std::function<void()> on_run = {});
  OptimisticBlock(const OptimisticBlock&) = delete;
  OptimisticBlock& operator=(const OptimisticBlock&) = delete;

  // Runs `statement` against committed state plus the block's own writes and
  // records it (`writes`: it may change data or schemas, so later steps must
  // re-apply it). Rethrows what the statement throws (positions intact);
  // throws 40001 when an earlier writing statement's result has changed (the
  // block can no longer commit), or when the statement fails and any earlier
  // result has changed (ThrowIfStale). After a throw the caller abandons the
  // block.
  // `ordered`: the order of the result's rows is part of the answer (a
  // top-level ORDER BY); otherwise COMMIT compares them as a multiset.
  // `lock`: the statement locks the rows it names (FOR UPDATE / SHARE).
  // The step then holds them before its result is returned; when it had to
  // wait for them, or another block released one after the step read it,
  // the step runs again while holding them, so that its result is the
  // rows as the last holder left them.
  // `tables`: the tables the statement is expected to read or write (from
  // its bound plan; null: unknown). The step then runs again only those
  // earlier writing statements whose writes it can see (see "Which earlier
  // writes a step runs again" above).
  StatementResult Run(BlockStatement statement, bool writes, bool ordered = true,
                      const RowLockRequest* lock = nullptr, const StepFootprint* tables = nullptr);
  // Runs `fn` on the block's state without recording it (binding a statement
  // against the block's uncommitted DDL).
  void Inspect(const std::function<void(Transaction&)>& fn);
  // One transaction: every statement again, in order; commits when each
  // result equals the one its client saw, else fails with 40001 and changes
  // nothing. An empty block commits nothing (ok, no LSN).
  TxnResult Commit();

  // SAVEPOINT `name` (names may repeat: the newest one counts).
  void Savepoint(const std::string& name);
  // ROLLBACK TO SAVEPOINT: takes back every statement since the newest
  // savepoint `name` (it stays; those set after it are gone) and returns its
  // level (0: the oldest savepoint still set). RELEASE: forgets `name` and
  // every savepoint set after it, keeping their statements; returns the
  // level it had. Both throw 3B001 for a name no savepoint has.
  size_t RollbackTo(const std::string& name);
  size_t Release(const std::string& name);
  size_t savepoints() const { return savepoints_.size(); }

  size_t statements() const { return entries_.size(); }
  // Gives back the block's row locks before it is destroyed (they are given
  // back then anyway): a committed block may be freed later.
  void ReleaseLocks() { locks_.table().ReleaseAll(locks_.id()); }
  // The block ran DDL: binding for it must happen in it (Inspect).
  void NoteSchemaChange() { changed_schema_ = true; }
  bool changed_schema() const { return changed_schema_; }

 private:
  struct Entry {
    enum class Kind : uint8_t {
      kStatement,   // ran; `digest` is its result's
      kFailed,      // failed while a savepoint was set; `digest` is its error's
      kSavepoint,   // sets the savepoint of level `level`
      kRollbackTo,  // rolls back to the savepoint of level `level`
      kRelease,     // forgets the savepoints of level `level` and up
    };
    Kind kind = Kind::kStatement;
    size_t level = 0;          // the markers
    bool rolled_back = false;  // a ROLLBACK TO took it back: only COMMIT runs it
    BlockStatement statement;
    bool writes = false;
    bool ordered = true;
    uint64_t digest = 0;  // of the result the client saw
    // What its step saw it do: the tables it looked up and those it
    // changed. `known` false: its tables were not known before it ran (DDL,
    // sequences, COPY): a later step runs it, and every write before it,
    // again whatever it reads.
    bool known = false;
    std::vector<TableId> looked_up;
    std::vector<TableId> changed;
    StepFootprint forecast;  // what the session said it would touch
  };
  // On the transaction thread: runs the recorded statements (all, or only
  // the writing ones) and checks their results; throws 40001 on a change.
  void Rerun(Transaction& txn, bool all) const;
  // The same for the entries `run` lists (ascending), replaying the
  // savepoint markers between them.
  void RerunMarked(Transaction& txn, const std::vector<size_t>& run) const;
  // Runs entry `i` again and checks its result (or its error).
  void RerunEntry(Transaction& txn, size_t i) const;
  // Which writing entries a statement over `footprint` depends on
  // (ascending): those whose changes it may see, directly or through
  // another entry it depends on.
  std::vector<size_t> WritesSeenBy(const StepFootprint& footprint) const;
  // Appends an entry, indexing what a writing one changed; takes back the
  // newest.
  void Record(Entry entry);
  void Unrecord();
  // After a step failed with `error`: when an earlier result of the block
  // has changed meanwhile, the failure comes from a concurrent commit the
  // block raced with, so the client gets 40001 (retry) instead -- as for two
  // New-Orders that read the same d_next_o_id, where the second's INSERT
  // would otherwise report 23505, which a serial run never produces.
  void ThrowIfStale(const DbError& error) const;
  // After a step failed with `error` for good: records it, when a savepoint
  // may bring the block back (see "Savepoints" above).
  void RecordFailure(const BlockStatement& statement, const DbError& error);

  // One run of a step, recorded.
  StatementResult Step(BlockStatement statement, bool writes, bool ordered,
                       const StepFootprint* tables);

  // The newest savepoint `name` (3B001 if none), as an index of savepoints_.
  size_t FindSavepoint(const std::string& name) const;
  // An entry that is only a marker of the savepoints.
  void AddMarker(Entry::Kind kind, size_t level);

  Database& db_;
  RowLockOwner locks_;
  std::function<void()> on_run_;
  std::vector<Entry> entries_;
  // The savepoints set: name, and the index of its kSavepoint entry.
  std::vector<std::pair<std::string, size_t>> savepoints_;
  BlockWriteIndex writes_index_;        // the known writing entries
  std::vector<size_t> unknown_writes_;  // the writing entries not known (ascending)
  size_t markers_ = 0;                  // savepoint marker entries
  bool has_writes_ = false;
  bool changed_schema_ = false;
};

// Runs `work` as one transaction on the transaction thread. An exception
// `work` throws is rethrown as it was (positions intact); a failure after it
// returned (the commit, the log) comes back in the TxnResult.
TxnResult RunTransaction(Database& db, const std::function<void(Transaction&)>& work);

// A digest of what a client is sent for a statement: command tag, columns,
// rows (notices excluded); with `ordered` false the rows count as a
// multiset: any order gives the same digest.
uint64_t ResultDigest(const StatementResult& result, bool ordered = true);

}  // namespace forktail
