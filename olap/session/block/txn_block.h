// TxnBlock: a transaction block (BEGIN ... COMMIT) that holds the transaction
// thread between its statements.
//
// Start() opens the block; the transaction body is submitted with the first
// statement (Run), not at BEGIN, so the block holds the transaction thread
// one client round trip less (BEGIN's) and a block that runs no statement
// never takes the thread. The block's serialization point is therefore its
// first statement. On the transaction thread the body
// waits for the session's next statement (a callable run on the block's
// Transaction), runs it, hands back its outcome, and waits again — at most
// `hold` each time. Then:
//   Finish(true)   the body returns: the engine commits (redo + commit record,
//                  acknowledged when durable); the TxnResult carries the LSN;
//   Finish(false)  the body throws: every change of the block is undone;
//   a statement throws: the body rethrows it after handing it to the
//                  session, so the block is rolled back at once and the
//                  thread is free (the session is then in state E);
//   no statement within `hold`: the body throws and the block rolls back
//                  (timed_out() becomes true; Run then throws 25P03).
// The session thread never runs transaction code itself; it only exchanges
// work with the body under the block's mutex, so "timed out" and "statement
// picked up" are decided atomically.
//
// Not thread-safe (one session), except that the body runs on the
// transaction thread.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>

#include "forktail/database.h"

namespace forktail {

// 25P03 (PostgreSQL's idle_in_transaction_session_timeout).
inline constexpr const char* kIdleInTransactionTimeout = "25P03";

// Process-wide totals over every block since start: how long block bodies
// held the transaction thread, and how much of that they spent waiting for
// their client's next statement (SHOW forktail.txn_block_stats).
struct TxnBlockStats {
  uint64_t blocks = 0;
  uint64_t held_ns = 0;
  uint64_t idle_ns = 0;
};

class TxnBlock {
 public:
  static TxnBlockStats GlobalStats();

  using Work = std::function<void(Transaction&)>;

  TxnBlock(Database& db, std::chrono::milliseconds hold);
  // Rolls back and waits if still open.
  ~TxnBlock();
  TxnBlock(const TxnBlock&) = delete;
  TxnBlock& operator=(const TxnBlock&) = delete;

  void Start();
  // Runs `work` in the block on the transaction thread and waits; rethrows
  // what it throws (the block is then rolled back: alive() false). Throws
  // 25P03 if the block had timed out, 25000 if it is no longer alive.
  void Run(const Work& work);
  // Commits (true) or rolls back (false) and waits for the outcome. After an
  // error or a timeout the block is already rolled back: returns that result.
  TxnResult Finish(bool commit);

  // The body is still waiting for statements (not failed, timed out or finished).
  bool alive() const;
  // A statement has run in the block (its body holds or held the thread).
  bool started() const { return submitted_; }
  bool timed_out() const;
  // The session ran (or is about to run) a statement that may change schemas
  // (DDL) in the block: from then on, binding for the block must happen in it
  // (its uncommitted schemas are not in Database::schemas()). Until then the
  // published copy is exactly what the block sees: the block holds the
  // transaction thread, so no other schema change commits meanwhile.
  void NoteSchemaChange() { changed_schema_ = true; }
  bool changed_schema() const { return changed_schema_; }

 private:
  struct State;
  Database& db_;
  const std::chrono::milliseconds hold_;
  std::shared_ptr<State> state_;
  void Submit();

  std::future<TxnResult> result_;
  bool start_requested_ = false;
  bool submitted_ = false;
  bool finished_ = false;
  bool changed_schema_ = false;
  TxnResult final_;
};

}  // namespace forktail
