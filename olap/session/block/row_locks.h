// RowLockTable: the row locks that SELECT ... FOR UPDATE / FOR SHARE take in
// a transaction block (optimistic_block.h).
//
// Why locks in an optimistic engine: a block is serializable without any
// (COMMIT runs every statement again and validates its result), but two
// blocks that read a row and then change it -- two TPC-C New-Orders taking
// the same district's next order id -- would both go ahead, and the second
// would fail at COMMIT with 40001. A client that writes FOR UPDATE asks for
// PostgreSQL's behaviour instead: the second waits until the first block has
// ended, then reads the row as the first left it, and both commit.
//
// Locks only schedule; validation at COMMIT stays the guarantee. A statement
// that takes no lock (a plain UPDATE of a locked row from another session,
// a read) never waits; if it changes what a locker read, the locker's COMMIT
// fails with 40001, as it would without locks.
//
// Keys are opaque strings (a table and a row's primary key). Modes: share
// (FOR SHARE, FOR KEY SHARE) and exclusive (FOR UPDATE, FOR NO KEY UPDATE);
// only shares are compatible with each other. A wait that would close a
// cycle of waits fails at once with 40P01 (PostgreSQL looks for cycles after
// deadlock_timeout; here the cycle is known when the wait begins). Waits
// end with 55P03 at lock_timeout (or at once with NOWAIT) and with 57014
// when the statement is canceled. An owner holds its locks until
// ReleaseAll (its block's end: COMMIT, ROLLBACK, failure, disconnect).
//
// Thread-safe: one mutex; a locking statement makes one Acquire call.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forktail {

class RowLockTable {
 public:
  enum class Mode : uint8_t { kShare, kExclusive };

  struct WaitPolicy {
    bool nowait = false;                        // NOWAIT: 55P03 instead of waiting
    std::chrono::milliseconds timeout{0};       // lock_timeout; 0: none
    const std::atomic<bool>* cancel = nullptr;  // set: the wait ends with 57014
    // SKIP LOCKED: never wait; a blocked key makes Acquire take nothing and
    // return true, so that the statement runs again and leaves that row out.
    bool skip_locked = false;
  };

  // A fresh owner id (one per block).
  uint64_t NewOwner();

  // The release counter now. A statement reads its rows, then Acquires with
  // the epoch taken before it ran: a key released by another owner after
  // that epoch may hold a row that changed after the statement read it.
  uint64_t Epoch() const;

  // Returns once `owner` holds every key in `mode` (an exclusive lock
  // covers a share). Returns true when the statement that named the keys
  // must run again, now that they are held: it waited, or a key was
  // released by another owner after `epoch`. `relation` names the table in
  // errors. Throws 55P03, 40P01 or 57014 (see above) and then holds none of
  // `keys` that it did not hold before.
  bool Acquire(uint64_t owner, const std::vector<std::string>& keys, Mode mode, uint64_t epoch,
               const WaitPolicy& policy, std::string_view relation);

  // Whether `owner` could take `key` in `mode` now without waiting.
  bool Available(uint64_t owner, const std::string& key, Mode mode) const;

  // Releases everything `owner` holds and wakes the waiters.
  void ReleaseAll(uint64_t owner);

  // How many keys `owner` holds (tests, SHOW).
  size_t held(uint64_t owner) const;

 private:
  struct Lock {
    Mode mode = Mode::kShare;
    std::vector<uint64_t> holders;
  };
  static size_t Slot(const std::string& key);
  bool Compatible(const Lock& lock, uint64_t owner, Mode mode) const;
  // Whether `owner` waiting for `key` closes a cycle of waits.
  bool WouldDeadlock(uint64_t owner, const std::string& key) const;

  mutable std::mutex mu_;
  std::condition_variable released_;
  std::unordered_map<std::string, Lock> locks_;
  std::unordered_map<uint64_t, std::vector<std::string>> held_;  // owner -> keys
  std::unordered_map<uint64_t, std::string> waits_;              // owner -> key it waits for
  std::atomic<uint64_t> next_owner_{1};
  std::atomic<uint64_t> epoch_{0};
  // The epoch of the last release per hash slot of the key: a key shares a
  // slot with others, so a check may find a release that was another key's
  // (one needless re-run), never miss one.
  std::array<uint64_t, 4096> released_at_{};
};

// Holds an owner's locks for as long as it lives.
class RowLockOwner {
 public:
  explicit RowLockOwner(RowLockTable& table) : table_(table), id_(table.NewOwner()) {}
  ~RowLockOwner() { table_.ReleaseAll(id_); }
  RowLockOwner(const RowLockOwner&) = delete;
  RowLockOwner& operator=(const RowLockOwner&) = delete;

  RowLockTable& table() const { return table_; }
  uint64_t id() const { return id_; }

 private:
  RowLockTable& table_;
  uint64_t id_;
};

}  // namespace forktail
