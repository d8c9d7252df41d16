// Adaptive block capacity through the Database: restart by log replay and by
// checkpoint + log gives every block the capacity and every row the tid of the
// original run, with rolled-back transactions that started blocks of their
// own; a large rolled-back batch leaves nothing behind.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::ExpectOk;
using testing::TempDir;

constexpr uint32_t kDeclared = 2000;  // the schema's guess reserves 256 bytes

TableSchema NoteSchema() {
  return {
      "notes", {{"k", Type::Integer(), true}, {"note", Type::Varchar(kDeclared)}}, {ColumnId(0)}};
}

Row Note(int32_t k, size_t len) {
  return {Value::Integer(k), Value::String(Type::Varchar(kDeclared),
                                           std::string(len, static_cast<char>('a' + k % 26)))};
}

// Per block its capacity and row count, per live row its tid and values.
std::vector<std::string> Shape(Database& db) {
  std::vector<std::string> out;
  ExpectOk(db.Run([&](Transaction& txn) {
    const Table& t = txn.GetTable("notes");
    t.ForEachBlock([&](const BlockRef& b, const BlockReadView& v) {
      out.push_back("block capacity " + std::to_string(b->capacity()) + " rows " +
                    std::to_string(v.row_count()));
    });
    txn.Scan("notes", [&](TupleId tid, const Row& row) {
      out.push_back(tid.ToString() + " " + row[0].ToString() + " " +
                    std::to_string(row[1].GetString().size()));
      return true;
    });
  }));
  return out;
}

class AdaptiveCapacityTest : public ::testing::Test {
 protected:
  std::unique_ptr<Database> Open() { return Database::Open(dir_.path(), DatabaseOptions{}); }

  // Transactions of 1..150 inserts with strings of about 550 or 1350 bytes by
  // phase, some deletes; every fourth rolls back after inserting 1900-byte
  // rows (enough to start a block).
  void History(Database& db, int steps, int32_t* k) {
    std::mt19937_64 rng(seed_);
    for (int step = 0; step < steps; step++) {
      bool abort = rng() % 4 == 0;
      size_t n = 1 + rng() % 150;
      size_t len = (step / 15) % 2 == 0 ? 500 + rng() % 100 : 1200 + rng() % 300;
      int32_t first = *k;
      TxnResult r = db.Run([&](Transaction& txn) {
        for (size_t i = 0; i < n; i++)
          txn.Insert("notes", Note(first + static_cast<int32_t>(i), abort ? 1900 : len + i % 7));
        if (step % 3 == 0 && first > 0) txn.DeleteByKey("notes", {Value::Integer(first - 1)});
        if (abort) txn.Abort("rolled back");
      });
      EXPECT_EQ(r.ok, !abort) << "seed " << seed_ << " step " << step << ": " << r.message;
      *k += static_cast<int32_t>(n);
    }
  }

  const uint64_t seed_ = 6;
  TempDir dir_;
};

TEST_F(AdaptiveCapacityTest, ReplayAndCheckpointReproduceCapacitiesAndTids) {
  std::vector<std::string> shape;
  int32_t k = 0;
  {
    auto db = Open();
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(NoteSchema()); }));
    History(*db, 60, &k);
    shape = Shape(*db);
  }
  std::set<std::string> capacities;
  for (const std::string& line : shape) {
    if (line.rfind("block", 0) == 0) capacities.insert(line.substr(0, line.find(" rows")));
  }
  ASSERT_GE(capacities.size(), 2u) << "seed " << seed_;
  {
    auto db = Open();  // log replay
    EXPECT_EQ(Shape(*db), shape) << "seed " << seed_;
    db->Checkpoint();
    History(*db, 30, &k);
    shape = Shape(*db);
  }
  auto db = Open();  // checkpoint images + log replay
  EXPECT_TRUE(db->recovery_report().has_checkpoint);
  EXPECT_EQ(Shape(*db), shape) << "seed " << seed_;
}

TEST_F(AdaptiveCapacityTest, LargeRolledBackInsertLeavesNothing) {
  auto db = Open();
  ExpectOk(db->Run([](Transaction& txn) {
    txn.CreateTable(NoteSchema());
    for (int i = 0; i < 100; i++) txn.Insert("notes", Note(i, 10));
  }));
  std::vector<std::string> before = Shape(*db);
  EXPECT_FALSE(db->Run([](Transaction& txn) {
                   for (int i = 100; i < 20100; i++) txn.Insert("notes", Note(i, 300));
                   txn.Abort("rolled back");
                 }).ok);
  EXPECT_EQ(Shape(*db), before);
  ExpectOk(db->Run([](Transaction& txn) {
    EXPECT_EQ(txn.GetTable("notes").block_count(), 1u);
    EXPECT_FALSE(txn.Find("notes", {Value::Integer(100)}));
    EXPECT_EQ(txn.GetTable("notes").live_row_count(), 100u);
  }));
}

}  // namespace
}  // namespace forktail
