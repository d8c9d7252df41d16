// The kill -9 crash test (bank transfers), shared by crash_test.cc (CI,
// 200 cycles) and crash_longtest.cc (2,000 cycles, `make crash-long`).
//
// Each cycle the parent fork()s and exec()s the test binary itself with
// FORKTAIL_CRASH_CHILD set; a static initializer in the child (before main
// and gtest) opens the database, runs transfers from three submitter threads
// and takes checkpoints at random moments from a fourth, and reports every
// acknowledged transfer id on a pipe. The parent SIGKILLs it at a random
// moment (sometimes while it is still recovering), reopens the database and
// checks:
//   (a) every acknowledged transfer is in the transfers table (lost == 0);
//   (b) the sum of the balances never changes (violations == 0);
//   (c) every 50 cycles and at the end: each account's balance minus the
//       initial balance equals its net flow in the transfers table (the
//       balances and the history were committed together), and all
//       acknowledged ids are checked again, not only this cycle's; the
//       transfers table's two secondary indexes (one unique) hold exactly
//       its live rows, and probing them finds what a scan finds; its two
//       foreign keys (src and dst reference account) are still in the
//       schema, and no transfer references an account that does not exist.
//       The child also keeps trying to insert transfers to an account that
//       does not exist, which must fail with 23503.
// exec keeps the child free of the parent's threads (RocksDB keeps a
// process-wide thread pool, which fork alone would not carry over).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/txn_test_util.h"

namespace forktail::crash {

inline constexpr int kAccounts = 16;
inline constexpr int64_t kInitialBalance = 1000;
inline constexpr const char* kChildEnv = "FORKTAIL_CRASH_CHILD";

inline void RegisterBank(Database& db) {
  db.RegisterProcedure("transfer",
                       [](Transaction& txn, int64_t id, int64_t from, int64_t to, int64_t amount) {
                         auto a = txn.Get("account", {Value::BigInt(from)});
                         auto b = txn.Get("account", {Value::BigInt(to)});
                         if (!a || !b) txn.Abort("no such account");
                         if ((*a)[1].GetInt() < amount) txn.Abort("insufficient funds");
                         txn.UpdateByKey("account", {Value::BigInt(from)},
                                         {{"balance", Value::BigInt((*a)[1].GetInt() - amount)}});
                         txn.UpdateByKey("account", {Value::BigInt(to)},
                                         {{"balance", Value::BigInt((*b)[1].GetInt() + amount)}});
                         txn.Insert("transfer", {Value::BigInt(id), Value::BigInt(from),
                                                 Value::BigInt(to), Value::BigInt(amount)});
                       });
  // A transfer to an account that does not exist: its foreign key refuses it.
  db.RegisterProcedure("orphan", [](Transaction& txn, int64_t id) {
    txn.Insert("transfer", {Value::BigInt(id), Value::BigInt(0), Value::BigInt(kAccounts + 7),
                            Value::BigInt(1)});
  });
}

inline ForeignKeyDef TransferToAccount(std::string name, uint16_t column) {
  ForeignKeyDef fk;
  fk.name = std::move(name);
  fk.columns = {ColumnId(column)};
  fk.referenced_table = "account";
  fk.referenced_columns = {ColumnId(0)};
  return fk;
}

// With a memory budget (budget_blocks > 0), small blocks: one account per
// block and 64 transfers per block, so that the data is many times the
// budget and blocks leave memory and come back all the time.
inline DatabaseOptions BankOptions(int budget_blocks) {
  DatabaseOptions o;
  o.memory_budget = static_cast<uint64_t>(budget_blocks) * kBlockSize;
  return o;
}

inline void CreateBank(const std::string& dir, int budget_blocks = 0) {
  auto db = Database::Open(dir, BankOptions(budget_blocks));
  TxnResult r = db->Run([budget_blocks](Transaction& txn) {
    TableOptions accounts, transfers;
    if (budget_blocks > 0) {
      accounts.max_rows_per_block = 1;
      transfers.max_rows_per_block = 64;
    }
    txn.CreateTable(
        {"account", {{"id", Type::BigInt(), true}, {"balance", Type::BigInt()}}, {ColumnId(0)}},
        accounts);
    TableSchema transfer{"transfer",
                         {{"id", Type::BigInt(), true},
                          {"src", Type::BigInt()},
                          {"dst", Type::BigInt()},
                          {"amount", Type::BigInt()}},
                         {ColumnId(0)}};
    transfer.foreign_keys.push_back(TransferToAccount("transfer_src_fkey", 1));
    txn.CreateTable(transfer, transfers);
    // The second one through the log's ALTER TABLE record.
    txn.AddForeignKey("transfer", TransferToAccount("transfer_dst_fkey", 2));
    txn.CreateIndex("transfer", {"transfer_src", {ColumnId(1)}, false, false});
    txn.CreateIndex("transfer", {"transfer_dst_id", {ColumnId(2), ColumnId(0)}, true, false});
    for (int i = 0; i < kAccounts; i++) {
      txn.Insert("account", {Value::BigInt(i), Value::BigInt(kInitialBalance)});
    }
  });
  r.ThrowIfError();
  // With a budget, a first checkpoint: every reopen then loads more blocks
  // than the budget holds, however few checkpoints the children finish.
  if (budget_blocks > 0) db->Checkpoint();
}

// The child: never returns.
[[noreturn]] inline void ChildMain(const std::string& dir, int fd, int64_t first_id, uint64_t seed,
                                   int budget_blocks) {
  try {
    auto db = Database::Open(dir, BankOptions(budget_blocks));
    RegisterBank(*db);
    int64_t ready = -1;
    if (write(fd, &ready, sizeof ready) != sizeof ready) _exit(3);
    std::atomic<int64_t> next_id{first_id};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; t++) {
      threads.emplace_back([&, t] {
        std::mt19937_64 rng(seed * 7 + t);
        for (;;) {
          int64_t id = next_id++;
          int64_t from = static_cast<int64_t>(rng() % kAccounts);
          int64_t to = static_cast<int64_t>((from + 1 + rng() % (kAccounts - 1)) % kAccounts);
          int64_t amount = static_cast<int64_t>(1 + rng() % 300);
          TxnResult r = db->Execute("transfer", {Value::BigInt(id), Value::BigInt(from),
                                                 Value::BigInt(to), Value::BigInt(amount)});
          if (r.ok && write(fd, &id, sizeof id) != sizeof id) _exit(3);
          if (!r.ok && r.sqlstate != "40000") _exit(4);
          if (rng() % 16 == 0 && db->Execute("orphan", {Value::BigInt(-id)}).sqlstate != "23503") {
            _exit(5);
          }
        }
      });
    }
    threads.emplace_back([&] {
      std::mt19937_64 rng(seed);
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 40));
        db->Checkpoint();
      }
    });
    for (auto& th : threads) th.join();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash child: %s\n", e.what());
    _exit(2);
  }
  _exit(0);
}

// Runs the child when this process was exec()ed as one (before main).
struct ChildHook {
  ChildHook() {
    const char* env = std::getenv(kChildEnv);
    if (env == nullptr) return;
    std::string s(env);  // dir|fd|first_id|seed|budget_blocks
    size_t a = s.find('|'), b = s.find('|', a + 1), c = s.find('|', b + 1), d = s.find('|', c + 1);
    ChildMain(s.substr(0, a), std::stoi(s.substr(a + 1, b - a - 1)),
              std::stoll(s.substr(b + 1, c - b - 1)), std::stoull(s.substr(c + 1, d - c - 1)),
              std::stoi(s.substr(d + 1)));
  }
};
inline ChildHook child_hook;

struct CrashStats {
  int cycles = 0;
  uint64_t acknowledged = 0;
  uint64_t lost = 0;
  uint64_t violations = 0;
  uint64_t checkpoints_seen = 0;
  uint64_t pool_reads = 0;  // blocks the reopens read back (with a memory budget)
};

// Checks the invariants on a reopened database; returns violations found.
// Lost acknowledged ids go into *lost. `full` adds the per-account check of
// the balances against the transfers table (a scan of the whole history).
inline uint64_t Verify(Database& db, const std::vector<int64_t>& acked, bool full,
                       std::set<int64_t>* lost) {
  uint64_t violations = 0;
  TxnResult r = db.Run([&](Transaction& txn) {
    for (int64_t id : acked) {
      if (!txn.Find("transfer", {Value::BigInt(id)})) lost->insert(id);
    }
    std::map<int64_t, int64_t> flow;
    std::map<int64_t, size_t> sent, received;
    if (full) {
      txn.Scan("transfer", [&](TupleId, const Row& row) {
        flow[row[1].GetInt()] -= row[3].GetInt();
        flow[row[2].GetInt()] += row[3].GetInt();
        sent[row[1].GetInt()]++;
        received[row[2].GetInt()]++;
        return true;
      });
      // The secondary indexes, rebuilt from a checkpoint or kept by replay,
      // agree with the rows.
      const Table& transfers = txn.GetTable("transfer");
      for (size_t i = 0; i < 2; i++) {
        if (transfers.secondary_index(i).size() != transfers.live_row_count()) violations++;
      }
      for (int64_t a = 0; a < kAccounts; a++) {
        IndexRange by_src{0, {Value::BigInt(a)}, {}, {}};
        IndexRange by_dst{1, {Value::BigInt(a)}, {}, {}};
        if (transfers.ProbeIndex(by_src, SIZE_MAX)->size() != sent[a]) violations++;
        if (transfers.ProbeIndex(by_dst, SIZE_MAX)->size() != received[a]) violations++;
      }
    }
    if (full) {
      // The foreign keys survived, and hold.
      if (txn.GetTable("transfer").schema().foreign_keys.size() != 2) violations++;
      if (txn.GetTable("account").referenced_by().size() != 2) violations++;
      txn.Scan("transfer", [&](TupleId, const Row& row) {
        for (int c : {1, 2}) {
          if (!txn.Find("account", {row[c]})) violations++;
        }
        return true;
      });
    }
    int64_t sum = 0;
    int accounts = 0;
    txn.Scan("account", [&](TupleId, const Row& row) {
      sum += row[1].GetInt();
      accounts++;
      if (full && row[1].GetInt() - kInitialBalance != flow[row[0].GetInt()]) violations++;
      if (row[1].GetInt() < 0) violations++;
      return true;
    });
    if (sum != kAccounts * kInitialBalance || accounts != kAccounts) violations++;
  });
  if (!r.ok) violations++;
  return violations;
}

// budget_blocks > 0: the child and every reopen run with that memory budget
// (DatabaseOptions::memory_budget) over small blocks (BankOptions).
inline CrashStats RunCrashLoop(int cycles, uint64_t seed, int budget_blocks = 0) {
  testing::TempDir dir;
  CreateBank(dir.path(), budget_blocks);
  std::mt19937_64 rng(seed);
  CrashStats stats;
  std::vector<int64_t> all_acked;
  size_t checked = 0;
  std::set<int64_t> lost_ids;  // all_acked[0, checked) were verified after an earlier cycle
  for (int cycle = 0; cycle < cycles; cycle++) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    std::string env = dir.path() + "|" + std::to_string(fds[1]) + "|" +
                      std::to_string(int64_t{cycle + 1} * 10'000'000) + "|" +
                      std::to_string(seed * 1000 + static_cast<uint64_t>(cycle)) + "|" +
                      std::to_string(budget_blocks);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      setenv(kChildEnv, env.c_str(), 1);
      execl("/proc/self/exe", "crash-child", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    bool wait_ready = rng() % 8 != 0;  // else: kill while it may still be recovering
    int64_t v;
    if (wait_ready) {
      if (read(fds[0], &v, sizeof v) != sizeof v) {
        ADD_FAILURE() << "child died before it was ready (cycle " << cycle << ", seed " << seed
                      << ")";
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFSIGNALED(status)) {
      ADD_FAILURE() << "child exited by itself with status " << WEXITSTATUS(status) << " (cycle "
                    << cycle << ", seed " << seed << ")";
    }
    while (read(fds[0], &v, sizeof v) == sizeof v) {
      if (v >= 0) all_acked.push_back(v);
    }
    close(fds[0]);
    stats.cycles++;
    std::unique_ptr<Database> db;
    try {
      db = Database::Open(dir.path(), BankOptions(budget_blocks));
    } catch (const DbError& e) {
      ADD_FAILURE() << "reopen failed after cycle " << cycle << " (seed " << seed
                    << "): " << e.what();
      break;
    }
    if (db->recovery_report().has_checkpoint) stats.checkpoints_seen++;
    // This cycle's acknowledgements every time; all of them every 50 cycles
    // and at the end (keeps the loop linear in the number of commits).
    bool full = cycle % 50 == 49 || cycle + 1 == cycles;
    std::vector<int64_t> fresh(all_acked.begin() + static_cast<ptrdiff_t>(checked),
                               all_acked.end());
    stats.violations += Verify(*db, full ? all_acked : fresh, full, &lost_ids);
    stats.pool_reads += db->pool_report().reads;
    stats.lost = lost_ids.size();
    checked = all_acked.size();
    if (cycle % 100 == 99) {
      std::printf("  ... %d cycles, %zu commits acknowledged, lost %llu, violations %llu\n",
                  cycle + 1, all_acked.size(), static_cast<unsigned long long>(stats.lost),
                  static_cast<unsigned long long>(stats.violations));
      std::fflush(stdout);
    }
  }
  stats.acknowledged = all_acked.size();
  std::printf(
      "crash test: seed %llu, cycles run %d, commits acknowledged %llu, lost %llu, invariant "
      "violations %llu, reopens that started from a checkpoint %llu, blocks read back %llu\n",
      static_cast<unsigned long long>(seed), stats.cycles,
      static_cast<unsigned long long>(stats.acknowledged),
      static_cast<unsigned long long>(stats.lost),
      static_cast<unsigned long long>(stats.violations),
      static_cast<unsigned long long>(stats.checkpoints_seen),
      static_cast<unsigned long long>(stats.pool_reads));
  return stats;
}

}  // namespace forktail::crash
