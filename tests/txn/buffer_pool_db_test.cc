// A Database with a memory budget (DatabaseOptions::memory_budget;
// tiering/buffer_pool.h): a table four times the budget under random
// transactions stays equal to a model while clean blocks leave memory and
// come back (transactions that miss one run again after it is read, never
// waiting for it under the execution lock); a restart loads a checkpoint
// larger than the budget within it; the embedded SQL path refuses snapshot
// routing with a budget rather than read evicted blocks wrongly.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::ExpectOk;
using testing::TempDir;

constexpr uint32_t kRowsPerBlock = 100;
constexpr int kBudgetBlocks = 8;
constexpr int kKeys = 3200;  // 32 blocks of keys: 4x the budget

DatabaseOptions Options() {
  DatabaseOptions o;
  o.memory_budget = kBudgetBlocks * kBlockSize;
  o.synchronous_commit = false;  // 100k commits: durability is not what is tested here
  o.checkpoint_mode = DatabaseOptions::CheckpointMode::kInProcess;
  return o;
}

void CreateKv(Database& db) {
  ExpectOk(db.Run([](Transaction& txn) {
    TableOptions o;
    o.max_rows_per_block = kRowsPerBlock;
    txn.CreateTable({"kv",
                     {{"k", Type::BigInt(), true}, {"v", Type::BigInt()}, {"s", Type::Text()}},
                     {ColumnId(0)}},
                    o);
  }));
}

void Register(Database& db) {
  db.RegisterProcedure("put", [](Transaction& txn, int64_t k, int64_t v) {
    if (!txn.UpdateByKey("kv", {Value::BigInt(k)}, {{"v", Value::BigInt(v)}})) {
      txn.Insert("kv",
                 {Value::BigInt(k), Value::BigInt(v), Value::Text("row " + std::to_string(k))});
    }
  });
  db.RegisterProcedure(
      "del", [](Transaction& txn, int64_t k) { txn.DeleteByKey("kv", {Value::BigInt(k)}); });
  db.RegisterProcedure("get", [](Transaction& txn, int64_t k) {
    if (auto row = txn.Get("kv", {Value::BigInt(k)})) txn.Emit({row->at(1)});
  });
  // Reads two rows and moves an amount from one to the other: a transaction
  // whose second block may be evicted after its first was read.
  db.RegisterProcedure("move", [](Transaction& txn, int64_t a, int64_t b) {
    auto ra = txn.Get("kv", {Value::BigInt(a)});
    auto rb = txn.Get("kv", {Value::BigInt(b)});
    if (!ra || !rb) return;
    txn.UpdateByKey("kv", {Value::BigInt(a)}, {{"v", Value::BigInt(ra->at(1).GetInt() - 1)}});
    txn.UpdateByKey("kv", {Value::BigInt(b)}, {{"v", Value::BigInt(rb->at(1).GetInt() + 1)}});
  });
}

std::map<int64_t, int64_t> Contents(Database& db) {
  std::map<int64_t, int64_t> out;
  ExpectOk(db.Run([&](Transaction& txn) {
    txn.Scan("kv", [&](TupleId, const Row& row) {
      out[row[0].GetInt()] = row[1].GetInt();
      if (row[2].GetString() != "row " + std::to_string(row[0].GetInt())) {
        ADD_FAILURE() << "row " << row[0].GetInt() << " has " << row[2].GetString();
      }
      return true;
    });
  }));
  return out;
}

TEST(BufferPoolDb, TableFourTimesTheBudgetMatchesAModel) {
  TempDir dir;
  std::map<int64_t, int64_t> model;
  {
    auto db = Database::Open(dir.path(), Options());
    ASSERT_TRUE(db->pool_report().enabled);
    CreateKv(*db);
    Register(*db);
    for (int64_t k = 0; k < kKeys; k++) {
      ExpectOk(db->Execute("put", {Value::BigInt(k), Value::BigInt(k)}));
      model[k] = k;
    }
    std::mt19937_64 rng(42);
    // Skewed: writes on a hot tenth of the keys, one in twenty a read of any
    // key (checked against the model). Cold rows are read, so their blocks leave memory
    // and come back; writes dirty few blocks, so the pool's write-back (a
    // checkpoint) keeps up. (txn_pool_bench measures cold writes.)
    auto hot = [&] { return static_cast<int64_t>(rng() % (kKeys / 10)); };
    int checked = 0;
    for (int op = 0; op < 100000; op++) {
      // Of 200: 140 puts, 1 delete (its key comes back at the tail: deletes
      // spread the hot keys over new blocks), 39 moves, 20 reads.
      const int kind = static_cast<int>(rng() % 200);
      if (kind < 140) {
        const int64_t k = hot(), v = static_cast<int64_t>(rng() % 1000000);
        ExpectOk(db->Execute("put", {Value::BigInt(k), Value::BigInt(v)}));
        model[k] = v;
      } else if (kind < 141) {
        const int64_t k = hot();
        ExpectOk(db->Execute("del", {Value::BigInt(k)}));
        model.erase(k);
      } else if (kind < 180) {
        const int64_t a = hot(), b = hot();
        if (a == b) continue;
        ExpectOk(db->Execute("move", {Value::BigInt(a), Value::BigInt(b)}));
        if (model.count(a) && model.count(b)) {
          model[a]--;
          model[b]++;
        }
      } else {
        const int64_t k = static_cast<int64_t>(rng() % kKeys);
        const TxnResult r = db->Execute("get", {Value::BigInt(k)});
        ExpectOk(r);
        auto it = model.find(k);
        ASSERT_EQ(r.rows.size(), it == model.end() ? 0u : 1u) << "key " << k << " op " << op;
        if (it != model.end()) {
          ASSERT_EQ(r.rows[0][0].GetInt(), it->second) << "key " << k << " op " << op;
          checked++;
        }
      }
      // Checkpoints make changed blocks clean (evictable); the pool also
      // asks for one when changed blocks alone exceed the budget. Rounds
      // here too, so that what the test sees does not hang on the pool
      // thread's timing.
      if (op % 2000 == 1999) db->Checkpoint();
      if (op % 500 == 499) db->TrimToBudget();
    }
    EXPECT_GT(checked, 3000);
    EXPECT_EQ(Contents(*db), model);
    const PoolReport r = db->pool_report();
    EXPECT_GT(r.evicted, 200u);
    EXPECT_GT(r.reads, 200u);
    EXPECT_GT(r.restarts, 200u);  // transactions that missed a block ran again
    std::printf(
        "pool: evicted %llu, read back %llu, restarts %llu, inline %llu, forced "
        "checkpoints %llu, resident %lld of %llu bytes\n",
        static_cast<unsigned long long>(r.evicted), static_cast<unsigned long long>(r.reads),
        static_cast<unsigned long long>(r.restarts),
        static_cast<unsigned long long>(r.inline_loads),
        static_cast<unsigned long long>(r.forced_checkpoints),
        static_cast<long long>(r.resident_bytes), static_cast<unsigned long long>(r.budget_bytes));
    // Once every block is clean, one round brings memory within the budget.
    db->Checkpoint();
    db->TrimToBudget();
    EXPECT_LE(db->pool_report().resident_bytes, static_cast<int64_t>(kBudgetBlocks * kBlockSize));
  }
  // A restart loads the checkpoint within the budget (blocks past it leave
  // as they load; the tail and the block in hand stay), and reads them back
  // as needed.
  auto db = Database::Open(dir.path(), Options());
  EXPECT_LE(db->pool_report().resident_bytes,
            static_cast<int64_t>((kBudgetBlocks + 2) * kBlockSize));
  EXPECT_EQ(Contents(*db), model);
  db->TrimToBudget();
  EXPECT_LE(db->pool_report().resident_bytes, static_cast<int64_t>(kBudgetBlocks * kBlockSize));
}

// A restart under the budget builds the statistics and the ordered indexes
// from each block as it loads it: the open reads no block back (a second
// pass over the evicted blocks did, twice), and statistics and lookups
// through the primary key and a secondary index answer as before it.
TEST(BufferPoolDb, RestartIndexesEachBlockAsItLoads) {
  TempDir dir;
  auto lookups = [](Database& db) {
    std::vector<std::string> out;
    ExpectOk(db.Run([&](Transaction& txn) {
      out.clear();  // a body that meets an evicted block runs again
      for (int64_t k = 0; k < kKeys; k += 97) {
        auto row = txn.Get("kv", {Value::BigInt(k)});
        out.push_back(row ? row->at(1).ToString() : "none");
      }
      for (int64_t v = 0; v < 40; v += 7) {
        IndexRange range;
        range.index = 0;  // kv_v
        range.equal = {Value::BigInt(v)};
        std::vector<TupleId> tids = txn.GetTable("kv").ProbeIndex(range, 1 << 20).value();
        out.push_back("v=" + std::to_string(v) + ": " + std::to_string(tids.size()));
      }
      for (int64_t k = 5; k < kKeys; k += 301) {
        IndexRange range;
        range.index = IndexRange::kPrimaryKeyOrder;
        range.equal = {Value::BigInt(k)};
        const size_t found = txn.GetTable("kv").ProbeIndex(range, 1 << 20).value().size();
        out.push_back("k=" + std::to_string(k) + ": " + std::to_string(found));
      }
    }));
    return out;
  };
  std::vector<std::string> before;
  uint64_t rows_before = 0;
  {
    auto db = Database::Open(dir.path(), Options());
    CreateKv(*db);
    ExpectOk(db->Run([](Transaction& txn) {
      txn.CreateIndex("kv", IndexDef{"kv_v", {ColumnId(1)}});
      for (int64_t k = 0; k < kKeys; k++) {
        txn.Insert("kv", {Value::BigInt(k), Value::BigInt(k % 40),
                          Value::Text("row " + std::to_string(k))});
      }
      for (int64_t k = 0; k < kKeys; k += 11) txn.DeleteByKey("kv", {Value::BigInt(k)});
    }));
    db->Checkpoint();
    before = lookups(*db);
    ExpectOk(db->Run([&](Transaction& txn) { rows_before = txn.GetTable("kv").live_row_count(); }));
  }
  auto db = Database::Open(dir.path(), Options());
  EXPECT_EQ(db->pool_report().reads, 0u);  // nothing read back while opening
  // The open left memory within the budget (blocks past it left as they loaded).
  EXPECT_LE(db->pool_report().resident_bytes,
            static_cast<int64_t>((kBudgetBlocks + 2) * kBlockSize));
  ExpectOk(db->Run(
      [&](Transaction& txn) { EXPECT_EQ(txn.GetTable("kv").live_row_count(), rows_before); }));
  EXPECT_EQ(lookups(*db), before);
}

// Temperatures outlive a restart (DESIGN.md, Tiering): the blocks a workload
// used in memory, which the SSD tier never served, are the ones a restart
// under the budget keeps in memory, wherever they lie in the table; with the
// slot table deleted (no temperatures) the first blocks loaded stay instead,
// and the hot ones must be read back.
TEST(BufferPoolDb, RestartKeepsTheBlocksThatWereHotInMemory) {
  TempDir dir;
  DatabaseOptions o = Options();
  o.ssd_tier_slots = 64;
  constexpr int64_t kHotFirst = 20 * kRowsPerBlock, kHotEnd = 24 * kRowsPerBlock;  // blocks 20-23
  auto read_hot = [&](Database& db) {
    ExpectOk(db.Run([&](Transaction& txn) {
      for (int64_t k = kHotFirst; k < kHotEnd; k++) EXPECT_TRUE(txn.Get("kv", {Value::BigInt(k)}));
    }));
  };
  auto hot_resident = [](Database& db) {
    int n = 0;
    ExpectOk(db.Run([&](Transaction& txn) {
      n = 0;
      for (uint32_t b = 20; b < 24; b++) n += txn.GetTable("kv").directory().resident(BlockNo(b));
    }));
    return n;
  };
  {
    auto db = Database::Open(dir.path(), o);
    CreateKv(*db);
    ExpectOk(db->Run([](Transaction& txn) {
      for (int64_t k = 0; k < kKeys; k++) {
        txn.Insert("kv",
                   {Value::BigInt(k), Value::BigInt(k), Value::Text("row " + std::to_string(k))});
      }
    }));
    db->Checkpoint();
    for (int epoch = 0; epoch < 100; epoch++) {
      read_hot(*db);
      db->TrimToBudget();  // a round starts a use epoch
    }
    // Scans read every other block back from the tier, three times: counted
    // by reads alone, they would be the hottest.
    for (int scan = 0; scan < 3; scan++) {
      EXPECT_EQ(Contents(*db).size(), static_cast<size_t>(kKeys));
      db->TrimToBudget();
    }
    db->Checkpoint();  // hands the blocks' uses to the tier
  }
  {
    auto db = Database::Open(dir.path(), o);
    EXPECT_EQ(db->pool_report().reads, 0u);
    EXPECT_EQ(hot_resident(*db), 4);
    EXPECT_LE(db->pool_report().resident_bytes, static_cast<int64_t>(kBudgetBlocks * kBlockSize));
    read_hot(*db);
    EXPECT_EQ(db->pool_report().reads, 0u);  // nothing to read back
  }
  std::filesystem::remove(dir.path() + "/tier/slots.table");
  auto db = Database::Open(dir.path(), o);
  EXPECT_EQ(hot_resident(*db), 0);
  read_hot(*db);
  EXPECT_GE(db->pool_report().reads, 4u);
}

// Without a budget nothing changes: every block stays, nothing is read.
TEST(BufferPoolDb, NoBudgetNoPool) {
  TempDir dir;
  DatabaseOptions o = Options();
  o.memory_budget = 0;
  auto db = Database::Open(dir.path(), o);
  EXPECT_FALSE(db->pool_report().enabled);
  CreateKv(*db);
  Register(*db);
  for (int64_t k = 0; k < 500; k++) {
    ExpectOk(db->Execute("put", {Value::BigInt(k), Value::BigInt(k)}));
  }
  db->Checkpoint();
  EXPECT_EQ(Contents(*db).size(), 500u);
}

}  // namespace
}  // namespace forktail
