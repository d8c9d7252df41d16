// Restart through the Database API: replay of the log, checkpoint + log, a
// torn tail cut at every byte offset, flipped bits, fdatasync failure.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <random>
#include <thread>
#include <utility>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::Account;
using testing::AccountSchema;
using testing::Dump;
using testing::ExpectOk;
using testing::TempDir;

class RecoveryDbTest : public ::testing::Test {
 protected:
  DatabaseOptions Options() {
    DatabaseOptions o;
    o.wal_file_system = &fs_;
    o.wal_segment_size = 16 << 10;
    return o;
  }
  std::unique_ptr<Database> Open() { return Database::Open(dir_.path(), Options()); }

  // A mixed history: DDL, inserts, in-place and relocating updates, key
  // changes, deletes, and rolled-back transactions of each kind (including a
  // rolled-back CREATE TABLE, which burns a table id).
  void MakeHistory(Database& db, int rounds) {
    ExpectOk(db.Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    EXPECT_FALSE(db.Run([](Transaction& txn) {
                     txn.CreateTable(AccountSchema("burned"));
                     txn.Abort("x");
                   }).ok);
    TableOptions small;
    small.max_rows_per_block = 64;
    ExpectOk(db.Run([&](Transaction& txn) {
      txn.CreateTable({"t", {{"k", Type::Integer(), true}, {"s", Type::Text()}}, {ColumnId(0)}},
                      small);
    }));
    for (int i = 0; i < rounds; i++) {
      ExpectOk(db.Run([&](Transaction& txn) {
        txn.Insert("account", Account(i, "owner" + std::to_string(i), i * 10));
        txn.Insert("t", {Value::Integer(i), Value::Text(std::string(i % 7, 'a'))});
        if (i >= 3) {
          txn.UpdateByKey("account", {Value::BigInt(i - 3)}, {{"balance", Value::BigInt(-i)}});
          txn.UpdateByKey("t", {Value::Integer(i - 3)},
                          {{"s", Value::Text(std::string(40 + i, 'b'))}});
        }
        if (i % 5 == 4) txn.DeleteByKey("account", {Value::BigInt(i - 1)});
        if (i % 9 == 8)
          txn.UpdateByKey("t", {Value::Integer(i)}, {{"k", Value::Integer(1000 + i)}});
      }));
      EXPECT_FALSE(db.Run([&](Transaction& txn) {
                       txn.Insert("account", Account(10000 + i, "gone", 0));
                       txn.DeleteByKey("account", {Value::BigInt(i)});
                       txn.Abort("rolled back");
                     }).ok);
    }
  }

  TempDir dir_;
  wal::FaultInjectionLogFileSystem fs_;
};

// A dry run (a step of a transaction block) reads a commit that is applied
// but not yet durable and reports at once; the commit itself and a read-only
// transaction that read it wait for the fdatasync (TxnEngine, "Dry runs").
TEST_F(RecoveryDbTest, DryRunSeesAnAppliedCommitWhileReadOnlyWaitsForItsSync) {
  auto db = Open();
  ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
  ExpectOk(db->Run([](Transaction& txn) { txn.Insert("account", Account(1, "a", 100)); }));
  auto balance = [](Transaction& txn) {
    return (*txn.Get("account", {Value::BigInt(1)}))[2].GetInt();
  };
  using Read = std::pair<bool, int64_t>;
  auto read = [&](bool dry) {
    int64_t b = 0;
    TxnResult r = db->Run([&](Transaction& txn) {
      if (dry) txn.DiscardOnReturn();
      b = balance(txn);
    });
    return Read{r.ok, b};
  };
  // Declared before the guard, so that a failing assertion releases the
  // held syncs before these futures wait for their threads.
  std::future<TxnResult> writer;
  std::future<Read> dry, reader;
  fs_.HoldSyncs();
  struct Release {
    wal::FaultInjectionLogFileSystem& fs;
    ~Release() { fs.ReleaseSyncs(); }
  } release{fs_};

  writer = std::async(std::launch::async, [&] {
    return db->Run([](Transaction& txn) {
      txn.UpdateByKey("account", {Value::BigInt(1)}, {{"balance", Value::BigInt(42)}});
    });
  });
  Read seen{false, 0};
  for (int i = 0; i < 5000 && seen.second != 42; i++) {
    dry = std::async(std::launch::async, read, true);
    ASSERT_EQ(dry.wait_for(std::chrono::seconds(10)), std::future_status::ready)
        << "a dry run waited for a held fdatasync";
    seen = dry.get();
    ASSERT_TRUE(seen.first);
    if (seen.second != 42) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(seen.second, 42);

  EXPECT_EQ(writer.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  reader = std::async(std::launch::async, read, false);
  EXPECT_EQ(reader.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a read-only transaction reported a commit that is not durable";
  fs_.ReleaseSyncs();
  ExpectOk(writer.get());
  EXPECT_EQ(reader.get(), (Read{true, 42}));
}

TEST_F(RecoveryDbTest, ReopenReplaysTheLog) {
  std::vector<Row> accounts, t;
  {
    auto db = Open();
    MakeHistory(*db, 40);
    accounts = Dump(*db, "account");
    t = Dump(*db, "t");
  }
  auto db = Open();
  EXPECT_FALSE(db->recovery_report().has_checkpoint);
  EXPECT_GT(db->recovery_report().replay.committed_txns, 40u);
  EXPECT_EQ(Dump(*db, "account"), accounts);
  EXPECT_EQ(Dump(*db, "t"), t);
  // Indexes were rebuilt by replay: lookups and constraints work.
  TxnResult dup = db->Run([](Transaction& txn) { txn.Insert("account", Account(0, "x", 0)); });
  EXPECT_EQ(dup.sqlstate, "23505");
  // Table ids line up after the burned id: a new table gets a fresh one.
  ExpectOk(db->Run(
      [](Transaction& txn) { EXPECT_EQ(txn.CreateTable(AccountSchema("n")), TableId(4)); }));
}

// Rows with their tuple ids, in tid order.
std::vector<std::pair<std::string, Row>> DumpWithTids(Database& db, const std::string& table) {
  std::vector<std::pair<std::string, Row>> rows;
  ExpectOk(db.Run([&](Transaction& txn) {
    txn.Scan(table, [&](TupleId tid, const Row& row) {
      rows.push_back({tid.ToString(), row});
      return true;
    });
  }));
  return rows;
}

size_t FrozenBlocks(Database& db, const std::string& table) {
  size_t frozen = 0;
  ExpectOk(db.Run([&](Transaction& txn) {
    const Table& t = txn.GetTable(table);
    for (size_t b = 0; b < t.block_count(); b++) {
      frozen += t.PinBlock(BlockNo(static_cast<uint32_t>(b)))->frozen();
    }
  }));
  return frozen;
}

// Frozen blocks (storage/table/block.h) in checkpoint images and under replay:
// updates of frozen rows move them, deletes mark them, and a restart from the
// checkpoint plus the log, or from the log alone, reproduces every row at its
// tuple id.
class FrozenRecoveryTest : public RecoveryDbTest, public ::testing::WithParamInterface<bool> {};

TEST_P(FrozenRecoveryTest, FrozenBlocksSurviveCheckpointAndReplay) {
  const bool checkpoint = GetParam();
  {
    std::vector<std::pair<std::string, Row>> t, accounts, wide;
    {
      auto db = Open();
      MakeHistory(*db, 400);
      // Blocks whose capacity follows their strings (no row cap): each
      // image's own capacity picks its layout when it loads.
      ExpectOk(db->Run([](Transaction& txn) {
        txn.CreateTable(
            {"wide", {{"k", Type::Integer(), true}, {"s", Type::Text()}}, {ColumnId(0)}});
        for (int k = 0; k < 3000; k++) {
          txn.Insert("wide", {Value::Integer(k), Value::Text(std::string(1000 + k % 1500, 'w'))});
        }
      }));
      EXPECT_GT(db->FreezeBlocks(Database::FreezeScope::kAll), 4u);
      EXPECT_GT(FrozenBlocks(*db, "wide"), 1u);
      const size_t frozen = FrozenBlocks(*db, "t");
      EXPECT_GT(frozen, 4u);
      if (checkpoint) db->Checkpoint();
      ExpectOk(db->Run([](Transaction& txn) {
        for (int k = 10; k < 60; k += 3) {
          txn.UpdateByKey("t", {Value::Integer(k)},
                          {{"s", Value::Text("moved " + std::to_string(k))}});
        }
        for (int k = 100; k < 130; k += 2) txn.DeleteByKey("t", {Value::Integer(k)});
        txn.Insert("t", {Value::Integer(5000), Value::Text("new")});
        txn.UpdateByKey("wide", {Value::Integer(7)}, {{"s", Value::Text("short")}});
        txn.DeleteByKey("wide", {Value::Integer(8)});
      }));
      // An idle pass: the blocks just changed are not frozen again yet.
      db->FreezeBlocks(Database::FreezeScope::kIdle);
      t = DumpWithTids(*db, "t");
      accounts = DumpWithTids(*db, "account");
      wide = DumpWithTids(*db, "wide");
    }
    auto db = Open();
    EXPECT_EQ(db->recovery_report().has_checkpoint, checkpoint);
    EXPECT_EQ(DumpWithTids(*db, "t"), t);
    EXPECT_EQ(DumpWithTids(*db, "account"), accounts);
    EXPECT_EQ(DumpWithTids(*db, "wide"), wide);
    if (checkpoint) {
      EXPECT_GT(FrozenBlocks(*db, "t"), 4u);  // loaded from their frozen images
    }
    // Keys still find their rows, and a key moved out of a frozen block is unique.
    ExpectOk(db->Run([](Transaction& txn) {
      EXPECT_TRUE(txn.Find("t", {Value::Integer(13)}).has_value());
      EXPECT_FALSE(txn.Find("t", {Value::Integer(102)}).has_value());
    }));
    EXPECT_EQ(db->Run([](Transaction& txn) {
                  txn.Insert("t", {Value::Integer(13), Value::Text("dup")});
                }).sqlstate,
              "23505");
  }
}

INSTANTIATE_TEST_SUITE_P(CheckpointOrLogOnly, FrozenRecoveryTest, ::testing::Bool());

TEST_F(RecoveryDbTest, CheckpointPlusLog) {
  std::vector<Row> accounts, t;
  {
    auto db = Open();
    MakeHistory(*db, 80);
    CheckpointResult c1 = db->Checkpoint();
    EXPECT_EQ(c1.sequence, 1u);
    EXPECT_EQ(c1.blocks_written, c1.blocks_total);
    EXPECT_GT(c1.segments_removed, 0);
    // Only the changed block is written the next time.
    ExpectOk(db->Run([](Transaction& txn) {
      txn.UpdateByKey("account", {Value::BigInt(1)}, {{"balance", Value::BigInt(5)}});
    }));
    CheckpointResult c2 = db->Checkpoint();
    EXPECT_EQ(c2.blocks_written, 1u);
    EXPECT_GE(c2.images_deleted, 1u);
    // More work after the checkpoint, to be replayed from the log.
    ExpectOk(db->Run([](Transaction& txn) {
      txn.Insert("account", Account(500, "late", 1));
      txn.DropTable("t");
      txn.CreateTable({"t2", {{"k", Type::Integer(), true}}, {ColumnId(0)}});
      txn.Insert("t2", {Value::Integer(7)});
    }));
    accounts = Dump(*db, "account");
    t = Dump(*db, "t2");
  }
  auto db = Open();
  const redo::RecoveryReport& r = db->recovery_report();
  EXPECT_TRUE(r.has_checkpoint);
  EXPECT_EQ(r.checkpoint.sequence, 2u);
  EXPECT_EQ(r.replay.committed_txns, 1u);
  EXPECT_EQ(Dump(*db, "account"), accounts);
  EXPECT_EQ(Dump(*db, "t2"), t);
  EXPECT_EQ(db->Run([](Transaction& txn) { txn.GetTable("t"); }).sqlstate, "42P01");
  // A checkpoint after recovery, then a second restart from it alone.
  db->Checkpoint();
  db.reset();
  db = Open();
  EXPECT_EQ(db->recovery_report().replay.committed_txns, 0u);
  EXPECT_EQ(Dump(*db, "account"), accounts);
}

// Rolled-back transactions leave heap garbage that replay never reproduces;
// replay must still place every update (in place or moved) where it went.
TEST_F(RecoveryDbTest, ReplayPlacesUpdatesDespiteRolledBackHeapGarbage) {
  const uint64_t seed = 424242;
  std::vector<std::pair<TupleId, Row>> before;
  auto snapshot = [](Database& db) {
    std::vector<std::pair<TupleId, Row>> rows;
    ExpectOk(db.Run([&](Transaction& txn) {
      txn.Scan("t", [&](TupleId tid, const Row& row) {
        rows.emplace_back(tid, row);
        return true;
      });
    }));
    return rows;
  };
  {
    auto db = Open();
    TableOptions small;
    small.max_rows_per_block = 64;
    ExpectOk(db->Run([&](Transaction& txn) {
      txn.CreateTable({"t", {{"k", Type::Integer(), true}, {"s", Type::Text()}}, {ColumnId(0)}},
                      small);
      for (int i = 0; i < 30; i++) txn.Insert("t", {Value::Integer(i), Value::Text("seed")});
    }));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 150; i++) {
      int k = static_cast<int>(rng() % 30);
      size_t len = rng() % (300 << 10);
      bool abort = rng() % 2 == 0;
      TxnResult r = db->Run([&](Transaction& txn) {
        txn.UpdateByKey("t", {Value::Integer(k)},
                        {{"s", Value::Text(std::string(len, static_cast<char>('a' + i % 26)))}});
        if (abort) txn.Abort("garbage");
      });
      EXPECT_EQ(r.ok, !abort) << "seed " << seed << " step " << i << ": " << r.message;
    }
    before = snapshot(*db);
  }
  auto db = Open();
  EXPECT_EQ(snapshot(*db), before) << "seed " << seed;
}

std::string LastSegment(wal::FaultInjectionLogFileSystem& fs, const std::string& dir) {
  std::vector<wal::SegmentInfo> segs;
  EXPECT_TRUE(wal::ListSegments(&fs, dir, &segs).ok());
  return segs.back().path;
}

TEST_F(RecoveryDbTest, TornTailAtEveryByteOffset) {
  wal::Lsn before_last = 0, end = 0;
  {
    auto db = Open();
    MakeHistory(*db, 5);
    before_last = db->log_stats().next_lsn;
    ExpectOk(db->Run([](Transaction& txn) {
      txn.Insert("account", Account(77, "last", 7));
      txn.UpdateByKey("account", {Value::BigInt(0)}, {{"balance", Value::BigInt(99)}});
    }));
    end = db->log_stats().next_lsn;
  }
  std::string seg = LastSegment(fs_, dir_.path());
  std::string full = fs_.Contents(seg);
  uint64_t full_size = full.size();
  uint64_t last_start = full_size - (end - before_last);
  for (uint64_t cut = last_start; cut <= full_size; cut++) {
    fs_.SetContents(seg, full.substr(0, cut));
    Catalog catalog;
    redo::RecoveryReport report;
    Status s = redo::RecoverDatabase(dir_.path(), &fs_, nullptr, nullptr, &catalog, false, &report);
    ASSERT_TRUE(s.ok()) << "cut at " << cut << ": " << s.ToString();
    bool complete = cut == full_size;
    EXPECT_EQ(catalog.FindTable("account")->LookupKey({Value::BigInt(77)}).has_value(), complete)
        << "cut at " << cut;
    EXPECT_TRUE(catalog.FindTable("account")->LookupKey({Value::BigInt(4)}).has_value());
    // Complete records of the unfinished transaction may stay (they are never
    // replayed: no commit record follows them); the torn bytes are gone.
    uint64_t kept = fs_.Contents(seg).size();
    EXPECT_LE(kept, cut);
    EXPECT_GE(kept, last_start);
    EXPECT_EQ(report.tail_cut, kept != cut) << cut;
    if (!complete) {
      EXPECT_EQ(report.replay.dropped_txns, kept != last_start ? 1u : 0u) << cut;
    }
  }
  // And once through the full Database: a cut in the middle, then new commits.
  fs_.SetContents(seg, full.substr(0, full_size - 5));
  auto db = Open();
  EXPECT_TRUE(db->recovery_report().tail_cut);
  ExpectOk(db->Run([](Transaction& txn) { txn.Insert("account", Account(77, "again", 1)); }));
  db.reset();
  db = Open();
  EXPECT_FALSE(db->recovery_report().tail_cut);
  ExpectOk(
      db->Run([](Transaction& txn) { EXPECT_TRUE(txn.Find("account", {Value::BigInt(77)})); }));
}

TEST_F(RecoveryDbTest, FlippedBitBeforeTheTailIsAnErrorNamingSegmentAndOffset) {
  {
    auto db = Open();
    MakeHistory(*db, 5);
  }
  std::string seg = LastSegment(fs_, dir_.path());
  std::string good = fs_.Contents(seg);
  for (size_t pos : {wal::kSegmentHeaderSize + 40, good.size() / 2}) {
    std::string bad = good;
    bad[pos] ^= 0x10;
    fs_.SetContents(seg, bad);
    try {
      Open();
      ADD_FAILURE() << "opened a corrupt log (flip at " << pos << ")";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), "XX001");
      std::string m = e.what();
      EXPECT_NE(m.find(wal::DisplayPath(seg)), std::string::npos) << m;
      EXPECT_NE(m.find("offset"), std::string::npos) << m;
    }
    // Nothing was cut: the damage is still there for an operator to see.
    EXPECT_EQ(fs_.Contents(seg), bad);
  }
  fs_.SetContents(seg, good);
  auto db = Open();
  EXPECT_EQ(Dump(*db, "account").size(), 4u);
}

TEST_F(RecoveryDbTest, FdatasyncFailureRefusesWritesAndKeepsAcknowledgedData) {
  std::vector<Row> acknowledged;
  {
    auto db = Open();
    MakeHistory(*db, 5);
    acknowledged = Dump(*db, "account");
    fs_.FailSyncAt(1);
    TxnResult r = db->Run([](Transaction& txn) { txn.Insert("account", Account(90, "x", 1)); });
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.sqlstate, "58030");
    EXPECT_NE(r.message.find("fdatasync"), std::string::npos) << r.message;
    TxnResult later = db->Run([](Transaction& txn) { txn.Insert("account", Account(91, "y", 1)); });
    EXPECT_EQ(later.sqlstate, "58030");
    EXPECT_NE(later.message.find("refuses writes"), std::string::npos) << later.message;
    EXPECT_FALSE(db->health().ok());
  }
  fs_.SimulateCrash();
  fs_.FailSyncAt(0);
  auto db = Open();
  std::vector<Row> now = Dump(*db, "account");
  // The unacknowledged insert may or may not be there; everything acknowledged is.
  for (const Row& row : acknowledged) {
    EXPECT_NE(std::find(now.begin(), now.end(), row), now.end());
  }
}

}  // namespace
}  // namespace forktail
