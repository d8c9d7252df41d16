#include "olap/session/block/txn_block.h"

#include "storage/storage.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace forktail {
namespace {

// Thrown by the body to roll the block back; never reaches a client.
class BlockEnded : public std::runtime_error {
 public:
  explicit BlockEnded(const char* why) : std::runtime_error(why) {}
};

std::atomic<uint64_t> g_blocks{0};
std::atomic<uint64_t> g_held_ns{0};
std::atomic<uint64_t> g_idle_ns{0};

uint64_t NanosSince(std::chrono::steady_clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t)
          .count());
}

// Adds the body's time on the transaction thread to the totals, however it ends.
class HeldTimer {
 public:
  HeldTimer() : start_(std::chrono::steady_clock::now()) {}
  ~HeldTimer() {
    g_blocks.fetch_add(1, std::memory_order_relaxed);
    g_held_ns.fetch_add(NanosSince(start_), std::memory_order_relaxed);
  }
  HeldTimer(const HeldTimer&) = delete;
  HeldTimer& operator=(const HeldTimer&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

TxnBlockStats TxnBlock::GlobalStats() {
  return {g_blocks.load(std::memory_order_relaxed), g_held_ns.load(std::memory_order_relaxed),
          g_idle_ns.load(std::memory_order_relaxed)};
}

struct TxnBlock::State {
  std::mutex mu;
  std::condition_variable cv;
  const Work* work = nullptr;  // a statement waiting to run
  bool work_done = false;
  std::exception_ptr work_error;
  enum class Ending { kNone, kCommit, kRollback } ending = Ending::kNone;
  bool ended = false;  // the body stopped taking statements
  bool timed_out = false;
};

TxnBlock::TxnBlock(Database& db, std::chrono::milliseconds hold)
    : db_(db), hold_(hold), state_(std::make_shared<State>()) {}

TxnBlock::~TxnBlock() {
  if (!finished_ && result_.valid()) Finish(false);
}

void TxnBlock::Start() { start_requested_ = true; }

void TxnBlock::Submit() {
  submitted_ = true;
  std::shared_ptr<State> s = state_;
  const std::chrono::milliseconds hold = hold_;
  result_ = db_.RunAsync([s, hold](Transaction& txn) {
    HeldTimer held;
    std::unique_lock<std::mutex> l(s->mu);
    for (;;) {
      auto idle_start = std::chrono::steady_clock::now();
      bool woke = s->cv.wait_for(
          l, hold, [&] { return s->work != nullptr || s->ending != State::Ending::kNone; });
      g_idle_ns.fetch_add(NanosSince(idle_start), std::memory_order_relaxed);
      if (!woke) {
        s->timed_out = true;
        s->ended = true;
        throw BlockEnded("idle in transaction timeout");
      }
      if (s->ending == State::Ending::kCommit) {
        s->ended = true;
        return;
      }
      if (s->ending == State::Ending::kRollback) {
        s->ended = true;
        throw BlockEnded("rollback");
      }
      const Work* work = s->work;
      s->work = nullptr;
      l.unlock();
      std::exception_ptr error;
      try {
        // This body cannot run again (its statements come one by one from
        // the session), so a block not in memory is read here, under the
        // lock (txn_engine.h, "Blocks not in memory"): such a block holds
        // the thread anyway.
        LoadPolicyScope loads(LoadPolicy::kInline);
        (*work)(txn);
      } catch (...) {
        error = std::current_exception();
      }
      l.lock();
      s->work_error = error;
      s->work_done = true;
      if (error) s->ended = true;
      // Notify after unlocking: the woken session does not block again on
      // the mutex this thread still holds (one context switch less per
      // statement on a busy machine).
      l.unlock();
      s->cv.notify_all();
      if (error) throw BlockEnded("statement failed");
      l.lock();
    }
  });
}

void TxnBlock::Run(const Work& work) {
  if (start_requested_ && !submitted_) Submit();
  std::unique_lock<std::mutex> l(state_->mu);
  if (state_->timed_out) {
    throw DbError(kIdleInTransactionTimeout,
                  "terminating transaction: idle in transaction timeout exceeded");
  }
  if (state_->ended) {
    throw DbError(sqlstate::kInvalidTransactionState, "the transaction block has ended");
  }
  state_->work = &work;
  state_->work_done = false;
  state_->work_error = nullptr;
  l.unlock();  // the body wakes without blocking on our mutex
  state_->cv.notify_all();
  l.lock();
  // Wait in slices: a body the engine refused to run (it is stopping) never
  // answers, but its future is then ready.
  while (!state_->cv.wait_for(l, std::chrono::milliseconds(50), [&] {
    return state_->work_done || (state_->ended && state_->work != nullptr);
  })) {
    if (result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      state_->ended = true;
      state_->work = nullptr;
      finished_ = true;
      final_ = result_.get();
      throw DbError(sqlstate::kAdminShutdown,
                    "the transaction block could not run: " + final_.message);
    }
  }
  if (!state_->work_done) {
    // The body ended (timeout) before it picked the statement up.
    state_->work = nullptr;
    if (state_->timed_out) {
      throw DbError(kIdleInTransactionTimeout,
                    "terminating transaction: idle in transaction timeout exceeded");
    }
    throw DbError(sqlstate::kInvalidTransactionState, "the transaction block has ended");
  }
  if (state_->work_error) std::rethrow_exception(state_->work_error);
}

TxnResult TxnBlock::Finish(bool commit) {
  if (finished_) return final_;
  if (!submitted_) {  // no statement ran: nothing to commit or undo
    std::lock_guard<std::mutex> l(state_->mu);
    state_->ended = true;
    finished_ = true;
    return final_;
  }
  {
    std::lock_guard<std::mutex> l(state_->mu);
    if (!state_->ended) {
      state_->ending = commit ? State::Ending::kCommit : State::Ending::kRollback;
      state_->cv.notify_all();
    }
  }
  finished_ = true;
  final_ = result_.get();
  return final_;
}

bool TxnBlock::alive() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return !state_->ended;
}

bool TxnBlock::timed_out() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->timed_out;
}

}  // namespace forktail
