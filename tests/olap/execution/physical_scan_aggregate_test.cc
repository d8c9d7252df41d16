// Differential tests of table scan, select, aggregate and the result sink,
// run by the real Scheduler (immediate, 1 worker, 2 workers) against a naive
// reference over the rows read back one by one with Table::Read.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <random>

#include "storage/table/fsst.h"
#include "storage/table/table.h"
#include "tests/olap/execution/physical_testing.h"

namespace forktail {
namespace {

using ptest::A;
using ptest::B;
using ptest::C;
using ptest::D;

// b > 10 OR c = 's3' (three-valued: NULL drops).
ExprPtr Predicate(uint32_t b_col = 1, uint32_t c_col = 2) {
  return Or(Compare(CompareOp::kGt, B(b_col), Constant(Value::BigInt(10))),
            Compare(CompareOp::kEq, C(c_col), Constant(Value::Text("s3"))));
}
bool PredicateRef(const Row& r) {
  return (!r[1].is_null() && r[1].GetInt() > 10) || (!r[2].is_null() && r[2].GetString() == "s3");
}

TEST(PhysicalScan, AllColumnsSkipDeletedRows) {
  for (uint32_t max_rows : {64u, 512u, 0u}) {
    SCOPED_TRACE("max_rows " + std::to_string(max_rows) + " seed 101");
    ptest::TestTable t = ptest::MakeTable("t", 3000, 101, 50, 0.5, max_rows);
    for (ptest::Mode mode : ptest::kModes) {
      auto got = ptest::Run(mode, [&](PlanBuilder& b) { return b.Sink(b.Scan(*t.table)); });
      EXPECT_EQ(ptest::Bag(got), ptest::Bag(t.live)) << ptest::ModeName(mode);
      EXPECT_EQ(got.size(), 3000u - 3000u / 7 - (3000 % 7 > 3));
    }
  }
}

// Records where its input's vectors point.
class PointerProbe final : public PhysicalOperator {
 public:
  explicit PointerProbe(std::vector<const void*>* out)
      : PhysicalOperator("Probe", {}, 1, 4), out_(out) {}

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr& block) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const DataChunk& c : AsChunkBlock(block).chunks) {
      out_->push_back(c.column(0).data<char>());
      out_->push_back(c.column(1).data<char>());
    }
  }

 private:
  std::mutex mutex_;
  std::vector<const void*>* out_;
};

TEST(PhysicalScan, FixedWidthColumnsAreZeroCopy) {
  ptest::TestTable t = ptest::MakeTable("t", 5000, 112, 50, 0, 1024);
  std::vector<const void*> pointers;
  SchedulerOptions options;
  options.immediate = true;
  Scheduler scheduler(options);
  auto plan = std::make_unique<QueryPlan>();
  ScanSpec spec;
  spec.columns = {1, 3};  // BIGINT, DOUBLE
  spec.filter = Compare(CompareOp::kGt, ptest::B(0), Constant(Value::BigInt(0)));
  OperatorId scan =
      plan->AddOperator(std::make_unique<TableScanOperator>(*t.table, std::move(spec), 1));
  OperatorId probe = plan->AddOperator(std::make_unique<PointerProbe>(&pointers));
  plan->AddEdge(scan, probe, true);
  scheduler.Submit(std::move(plan), 1, size_t{64} << 20).Wait();
  ASSERT_FALSE(pointers.empty());
  for (const void* p : pointers) EXPECT_TRUE(physical::PointsIntoTable(*t.table, p));
}

// Records the rows of its input and how they came: chunks per block, and
// whether any chunk carried a selection (into a Shape the test owns: the
// plan, and the operator with it, go with the query).
struct Shape {
  std::vector<Row> rows;
  std::vector<size_t> chunks_per_block;
  bool any_selection = false;
};
class ShapeProbe final : public PhysicalOperator {
 public:
  explicit ShapeProbe(Shape* out) : PhysicalOperator("ShapeProbe", {}, 1, 4), out_(out) {}

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr& block) override {
    std::lock_guard<std::mutex> lock(mutex_);
    out_->chunks_per_block.push_back(AsChunkBlock(block).chunks.size());
    for (const DataChunk& c : AsChunkBlock(block).chunks) {
      out_->any_selection |= c.rows().sel != nullptr;
      AppendChunkRows(c, &out_->rows);
    }
  }

 private:
  std::mutex mutex_;
  Shape* out_;
};

// Conjuncts on one string column run on a frozen block's dictionary (once
// per distinct string, NULL included) and keep the rows by code: the rows
// equal a plain table's, for comparisons, IN, LIKE, IS [NOT] NULL, a
// conjunct TRUE for NULL, one no string passes (the block is skipped), one
// beside an integer conjunct, and one that throws on every string while the
// filter never reaches it (the block keeps its rows for the filter). Where
// they decide their conjuncts, the rest of the filter still runs.
TEST(PhysicalScan, StringPredicatesOnDictionariesKeepThePlainRows) {
  ptest::TestTable plain = ptest::MakeTable("t", 20000, 105, 1000, 0, 4096);
  ptest::TestTable frozen = ptest::MakeTable("t", 20000, 105, 1000, 0, 4096);
  uint32_t cursor = 0;
  ASSERT_GT(frozen.table->FreezeBlocks(false, 100, &cursor), 0u);
  auto text = [](const char* s) { return Constant(Value::Text(s)); };
  std::vector<std::pair<std::string, std::function<ExprPtr()>>> filters = {
      {"c = 's3'", [&] { return Compare(CompareOp::kEq, C(), text("s3")); }},
      {"c < 's3'", [&] { return Compare(CompareOp::kLt, C(), text("s3")); }},
      {"'s2' <> c", [&] { return Compare(CompareOp::kNe, text("s2"), C()); }},
      {"c IN",
       [&] {
         return In(C(), {Value::Text("s1"), Value::Text("s6_long_string_tail")});
       }},
      {"c LIKE", [&] { return Like(C(), "s%tail"); }},
      {"c NOT LIKE", [&] { return Like(C(), "s1%", true); }},
      {"c IS NULL", [&] { return IsNull(C()); }},
      {"c IS NOT NULL", [&] { return IsNull(C(), true); }},
      {"coalesce",
       [&] {
         std::vector<ExprPtr> args;
         args.push_back(C());
         args.push_back(text("z"));
         return Compare(CompareOp::kEq, Coalesce(std::move(args)), text("z"));
       }},
      {"no string", [&] { return Compare(CompareOp::kEq, C(), text("nope")); }},
      {"or", [&] { return Or(Compare(CompareOp::kEq, C(), text("s0")), Like(C(), "%tail")); }},
      {"with an integer",
       [&] {
         return And(Compare(CompareOp::kLt, A(), Constant(Value::Integer(300))),
                    Compare(CompareOp::kGe, C(), text("s4")));
       }},
      {"with a double, which still filters after them",
       [&] {
         return And(And(Like(C(), "s%"), Compare(CompareOp::kGt, D(), Constant(Value::Double(10)))),
                    Compare(CompareOp::kLe, B(), Constant(Value::BigInt(500))));
       }},
      {"throws unreached",
       [&] {
         return And(
             Compare(CompareOp::kLt, B(), Constant(Value::BigInt(-1000))),
             Compare(CompareOp::kGt, Cast(C(), Type::Integer()), Constant(Value::Integer(0))));
       }},
  };
  for (const auto& [name, filter] : filters) {
    SCOPED_TRACE(name);
    // With projections, a column that only decided conjuncts read is never
    // decoded, and the others only for the rows kept.
    for (bool project : {false, true}) {
      for (ptest::Mode mode : {ptest::Mode::kImmediate, ptest::Mode::kTwoWorkers}) {
        auto scan = [&](const Table& table) {
          return ptest::Run(mode, [&](PlanBuilder& b) {
            ScanSpec spec;
            spec.filter = filter();
            if (project) {
              spec.projections.push_back(B());
              spec.projections.push_back(Arith(ArithOp::kAdd, A(), A()));
            }
            return b.Sink(b.Scan(table, std::move(spec)));
          });
        };
        std::vector<Row> want = scan(*plain.table);
        std::vector<Row> got = scan(*frozen.table);
        EXPECT_EQ(ptest::Bag(got), ptest::Bag(want)) << ptest::ModeName(mode) << " " << project;
        if (name != "no string" && name != "throws unreached") {
          EXPECT_FALSE(want.empty());
        }
      }
    }
  }
}

// A table of (id INTEGER, comment TEXT) with comment-like text (some NULL,
// some empty) in blocks of 4096 rows, every 7th row deleted; frozen, the
// comments are FSST-compressed.
std::shared_ptr<Table> CommentTable(bool freeze) {
  static const char* const kWords[] = {"special",  "requests",  "final",    "slyly", "ironic",
                                       "deposits", "furiously", "packages", "bold",  "even"};
  TableSchema schema{"comments", {{"id", Type::Integer()}, {"comment", Type::Text()}}, {}};
  std::shared_ptr<Table> table = physical::CreateTable(std::move(schema), 4096);
  std::mt19937_64 rng(29);
  std::vector<Row> rows;
  for (int32_t id = 0; id < 30000; id++) {
    std::string text;
    for (size_t w = rng() % 9; w > 0; w--) text += std::string(kWords[rng() % 10]) + " ";
    rows.push_back(
        {Value::Integer(id), id % 89 == 0 ? Value::Null(Type::Text()) : Value::Text(text)});
  }
  physical::InsertRows(*table, rows);
  size_t k = 0;
  physical::DeleteRows(*table, [&](const Row&) { return k++ % 7 == 3; });
  uint32_t cursor = 0;
  if (freeze) {
    EXPECT_GT(table->FreezeBlocks(false, 100, &cursor), 0u);
  }
  return table;
}

// LIKE '%a%b%' on a column FSST-compressed in frozen blocks runs on the
// codes: the rows equal a plain table's, negated or not, beside other
// conjuncts, and when only the projection's column is decoded.
TEST(PhysicalScan, LikeOnCompressedTextKeepsThePlainRows) {
  std::shared_ptr<Table> plain = CommentTable(false);
  std::shared_ptr<Table> frozen = CommentTable(true);
  ASSERT_NE(frozen->PinBlock(BlockNo(0))->FsstContains(ColumnId(1), {"x"}), nullptr);
  auto comment = [] { return ColumnRef(1, Type::Text()); };
  auto id = [] { return ColumnRef(0, Type::Integer()); };
  std::vector<std::pair<std::string, std::function<ExprPtr()>>> filters = {
      {"LIKE", [&] { return Like(comment(), "%special%requests%"); }},
      {"NOT LIKE", [&] { return Like(comment(), "%special%requests%", true); }},
      {"no row", [&] { return Like(comment(), "%nowhere%"); }},
      {"with an integer",
       [&] {
         return And(Compare(CompareOp::kLt, id(), Constant(Value::Integer(20000))),
                    Like(comment(), "%ly%ly%", true));
       }},
      {"in an OR",
       [&] {
         return Or(Like(comment(), "%bold%"),
                   Compare(CompareOp::kEq, id(), Constant(Value::Integer(3))));
       }},
      {"with '_'", [&] { return Like(comment(), "%s_ecial%"); }},
  };
  for (const auto& [name, filter] : filters) {
    SCOPED_TRACE(name);
    for (bool project : {false, true}) {
      auto scan = [&](const Table& table) {
        return ptest::Run(ptest::Mode::kTwoWorkers, [&](PlanBuilder& b) {
          ScanSpec spec;
          spec.filter = filter();
          if (project) spec.projections.push_back(id());
          return b.Sink(b.Scan(table, std::move(spec)));
        });
      };
      std::vector<Row> want = scan(*plain);
      EXPECT_EQ(ptest::Bag(scan(*frozen)), ptest::Bag(want)) << project;
      if (name != "no row") {
        EXPECT_FALSE(want.empty());
      }
    }
  }
}

// A filter that keeps few rows of each block: the block's output is packed
// into dense chunks (one here), plain or frozen, with the same rows.
TEST(PhysicalScan, SparseOutputIsPacked) {
  for (bool frozen : {false, true}) {
    SCOPED_TRACE(frozen ? "frozen" : "plain");
    ptest::TestTable t = ptest::MakeTable("t", 20000, 104, 1000, 0, 8192);
    if (frozen) {
      uint32_t cursor = 0;
      ASSERT_GT(t.table->FreezeBlocks(false, 100, &cursor), 0u);
    }
    std::vector<Row> want;
    for (const Row& r : t.live) {
      if (r[0].is_null() || r[0].GetInt() >= 30) continue;
      want.push_back({r[2], r[1].is_null() ? r[1] : Value::BigInt(r[1].GetInt() + 1), r[0]});
    }
    ASSERT_GT(want.size(), 100u);
    for (int workers : {0, 2}) {
      SchedulerOptions options;
      options.immediate = workers == 0;
      options.num_workers = std::max(workers, 1);
      options.pin_workers = false;
      Scheduler scheduler(options);
      auto plan = std::make_unique<QueryPlan>();
      ScanSpec spec;
      spec.columns = {0, 1, 2};
      spec.filter = Compare(CompareOp::kLt, A(), Constant(Value::Integer(30)));
      spec.projections.push_back(C());
      spec.projections.push_back(Arith(ArithOp::kAdd, B(), Constant(Value::BigInt(1))));
      spec.projections.push_back(A());
      OperatorId scan = plan->AddOperator(
          std::make_unique<TableScanOperator>(*t.table, std::move(spec), options.num_workers));
      Shape shape;
      OperatorId sink = plan->AddOperator(std::make_unique<ShapeProbe>(&shape));
      plan->AddEdge(scan, sink, true);
      scheduler.Submit(std::move(plan), options.num_workers, size_t{64} << 20).Wait();
      EXPECT_EQ(ptest::Bag(shape.rows), ptest::Bag(want)) << workers << " workers";
      EXPECT_FALSE(shape.any_selection);
      EXPECT_EQ(shape.chunks_per_block.size(), t.table->block_count());
      for (size_t n : shape.chunks_per_block) EXPECT_EQ(n, 1u);
    }
  }
}

TEST(PhysicalScan, FilterAndProjection) {
  ptest::TestTable t = ptest::MakeTable("t", 5000, 102, 50, 0.5, 4096);  // 2 blocks, 2 chunks
  std::vector<Row> want;
  for (const Row& r : t.live) {
    if (!PredicateRef(r)) continue;
    want.push_back(
        {r[2], r[1].is_null() ? r[1] : Value::BigInt(r[1].GetInt() + 1), r[0], r[2],
         r[0].is_null() ? r[0] : Value::Integer(static_cast<int32_t>(r[0].GetInt() * 2))});
  }
  for (ptest::Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      ScanSpec spec;
      spec.columns = {0, 1, 2};  // d, e not read
      spec.filter = Predicate();
      spec.projections.push_back(C());
      spec.projections.push_back(Arith(ArithOp::kAdd, B(), Constant(Value::BigInt(1))));
      spec.projections.push_back(A());
      spec.projections.push_back(C());  // the same column twice
      spec.projections.push_back(Arith(ArithOp::kMul, A(), Constant(Value::Integer(2))));
      return b.Sink(b.Scan(*t.table, std::move(spec)));
    });
    EXPECT_EQ(ptest::Bag(got), ptest::Bag(want)) << ptest::ModeName(mode) << " seed 102";
  }
}

// A runtime filter (the LIP hook): keeps rows whose a is even.
class EvenA final : public RuntimeFilter {
 public:
  uint32_t Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel) const override {
    const Vector& a = chunk.column(0);
    uint32_t n = 0;
    for (uint32_t k = 0; k < rows.count; ++k) {
      uint32_t i = rows[k];
      if (!a.IsNull(i) && a.data<int32_t>()[i] % 2 == 0) out_sel[n++] = i;
    }
    return n;
  }
};

TEST(PhysicalScan, RuntimeFilterHook) {
  ptest::TestTable t = ptest::MakeTable("t", 2000, 103, 40, 0, 256);
  std::vector<Row> want;
  for (const Row& r : t.live) {
    if (PredicateRef(r) && !r[0].is_null() && r[0].GetInt() % 2 == 0) want.push_back(r);
  }
  for (ptest::Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      ScanSpec spec;
      spec.filter = Predicate();
      spec.runtime_filters.push_back(std::make_shared<EvenA>());
      return b.Sink(b.Scan(*t.table, std::move(spec)));
    });
    EXPECT_EQ(ptest::Bag(got), ptest::Bag(want)) << ptest::ModeName(mode) << " seed 103";
  }
}

TEST(PhysicalSelect, FilterProjectOverStream) {
  ptest::TestTable t = ptest::MakeTable("t", 3000, 104, 30, 1.0, 320);
  std::vector<Row> want;
  for (const Row& r : t.live) {
    bool keep = !r[3].is_null() && r[3].GetDouble() < 10.0;  // d < 10
    if (!keep) continue;
    want.push_back({r[3], r[2], r[1].is_null() ? r[1] : Value::BigInt(r[1].GetInt() * 3)});
  }
  for (ptest::Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      OperatorId scan = b.Scan(*t.table);
      std::vector<ExprPtr> proj;
      proj.push_back(D());
      proj.push_back(C());
      proj.push_back(Arith(ArithOp::kMul, B(), Constant(Value::BigInt(3))));
      OperatorId sel = b.Select(scan, Compare(CompareOp::kLt, D(), Constant(Value::Double(10.0))),
                                std::move(proj));
      return b.Sink(sel);
    });
    EXPECT_EQ(ptest::Bag(got), ptest::Bag(want)) << ptest::ModeName(mode) << " seed 104";
  }
}

// Reference GROUP BY over Values: COUNT(*), COUNT(b), SUM(b), MIN(b), MAX(c),
// SUM(e), MIN(d) grouped by key columns `keys` of the rows.
std::vector<Row> ReferenceAggregate(const std::vector<Row>& rows, const std::vector<int>& keys) {
  struct State {
    Row key;
    int64_t count = 0, count_b = 0, sum_b = 0, sum_e = 0;
    bool any_e = false;
    Value min_b = Value::Null(Type::BigInt()), max_c = Value::Null(Type::Text()),
          min_d = Value::Null(Type::Double());
  };
  std::map<std::string, State> groups;
  for (const Row& r : rows) {
    Row key;
    for (int k : keys) key.push_back(r[k]);
    State& s = groups[ptest::ShowRow(key)];
    s.key = key;
    ++s.count;
    if (!r[1].is_null()) {
      ++s.count_b;
      s.sum_b += r[1].GetInt();
      if (s.min_b.is_null() || r[1].Compare(s.min_b) < 0) s.min_b = r[1];
    }
    if (!r[2].is_null() && (s.max_c.is_null() || r[2].Compare(s.max_c) > 0)) s.max_c = r[2];
    if (!r[4].is_null()) {
      s.any_e = true;
      s.sum_e += r[4].GetInt();
    }
    if (!r[3].is_null() && (s.min_d.is_null() || r[3].Compare(s.min_d) < 0)) s.min_d = r[3];
  }
  if (groups.empty() && keys.empty()) groups[""] = State{};
  std::vector<Row> out;
  for (auto& [k, s] : groups) {
    Row r = s.key;
    r.push_back(Value::BigInt(s.count));
    r.push_back(Value::BigInt(s.count_b));
    r.push_back(s.count_b > 0 ? Value::BigInt(s.sum_b) : Value::Null(Type::BigInt()));
    r.push_back(s.min_b);
    r.push_back(s.max_c);
    r.push_back(s.any_e ? Value::Decimal(s.sum_e, 18, 2) : Value::Null(Type::Decimal(18, 2)));
    r.push_back(s.min_d);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<AggregateSpec> TestAggs(uint32_t b = 1, uint32_t c = 2, uint32_t d = 3,
                                    uint32_t e = 4) {
  return {{AggKind::kCountStar, 0, {}}, {AggKind::kCount, b, {}}, {AggKind::kSum, b, {}},
          {AggKind::kMin, b, {}},       {AggKind::kMax, c, {}},   {AggKind::kSum, e, {}},
          {AggKind::kMin, d, {}}};
}

void CheckScanFilterAggregate(const ptest::TestTable& t, std::vector<uint32_t> keys,
                              uint64_t seed) {
  std::vector<Row> filtered;
  for (const Row& r : t.live) {
    if (PredicateRef(r)) filtered.push_back(r);
  }
  std::vector<int> ref_keys(keys.begin(), keys.end());
  auto want = ptest::Bag(ReferenceAggregate(filtered, ref_keys));
  for (AggMethod method : {AggMethod::kAdaptive, AggMethod::kIndependent, AggMethod::kShared,
                           AggMethod::kPartition, AggMethod::kPlat, AggMethod::kHybrid}) {
    for (ptest::Mode mode : ptest::kModes) {
      auto got = ptest::Run(mode, [&](PlanBuilder& b) {
        ScanSpec spec;
        spec.filter = Predicate();
        return b.Sink(b.Aggregate(b.Scan(*t.table, std::move(spec)), keys, TestAggs(), method));
      });
      EXPECT_EQ(ptest::Bag(got), want)
          << ptest::ModeName(mode) << " method " << AggMethodName(method) << " seed " << seed;
    }
  }
}

TEST(PhysicalAggregate, GroupedSkewedWithNullKeys) {
  ptest::TestTable t = ptest::MakeTable("t", 4000, 105, 60, 1.5, 512);
  CheckScanFilterAggregate(t, {0, 2}, 105);
}

TEST(PhysicalAggregate, GroupedManyGroupsBigBlocks) {
  ptest::TestTable t = ptest::MakeTable("t", 6000, 106, 3000, 0, 0);
  CheckScanFilterAggregate(t, {0}, 106);
}

TEST(PhysicalAggregate, Global) {
  ptest::TestTable t = ptest::MakeTable("t", 3000, 107, 60, 0, 256);
  CheckScanFilterAggregate(t, {}, 107);
}

TEST(PhysicalAggregate, EmptyTable) {
  ptest::TestTable t = ptest::MakeTable("t", 0, 108, 10, 0, 64);
  CheckScanFilterAggregate(t, {}, 108);   // one row: COUNT 0, SUMs NULL
  CheckScanFilterAggregate(t, {0}, 108);  // no rows
}

TEST(PhysicalAggregate, AllRowsDeletedOrFiltered) {
  ptest::TestTable t = ptest::MakeTable("t", 500, 109, 10, 0, 64);
  physical::DeleteRows(*t.table, [](const Row&) { return true; });
  t.live = physical::ReadLiveRows(*t.table);
  ASSERT_TRUE(t.live.empty());
  CheckScanFilterAggregate(t, {}, 109);
  CheckScanFilterAggregate(t, {0, 2}, 109);
}

TEST(PhysicalAggregate, SelectThenAggregateOverComputedColumn) {
  // SELECT c, SUM(b * 2), COUNT(*) FROM t WHERE a < 20 GROUP BY c
  ptest::TestTable t = ptest::MakeTable("t", 3000, 110, 40, 0.5, 384);
  std::map<std::string, std::tuple<Value, int64_t, bool, int64_t>> groups;
  for (const Row& r : t.live) {
    if (r[0].is_null() || r[0].GetInt() >= 20) continue;
    auto& [key, sum, any, count] = groups[ptest::Show(r[2])];
    key = r[2];
    if (!r[1].is_null()) {
      sum += r[1].GetInt() * 2;
      any = true;
    }
    ++count;
  }
  std::vector<Row> want;
  for (auto& [k, g] : groups) {
    auto& [key, sum, any, count] = g;
    want.push_back(
        {key, any ? Value::BigInt(sum) : Value::Null(Type::BigInt()), Value::BigInt(count)});
  }
  for (ptest::Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      std::vector<ExprPtr> proj;
      proj.push_back(C());
      proj.push_back(Arith(ArithOp::kMul, B(), Constant(Value::BigInt(2))));
      OperatorId sel =
          b.Select(b.Scan(*t.table), Compare(CompareOp::kLt, A(), Constant(Value::Integer(20))),
                   std::move(proj));
      return b.Sink(b.Aggregate(sel, {0}, {{AggKind::kSum, 1, {}}, {AggKind::kCountStar, 0, {}}}));
    });
    EXPECT_EQ(ptest::Bag(got), ptest::Bag(want)) << ptest::ModeName(mode) << " seed 110";
  }
}

TEST(PhysicalQuery, ErrorInWorkOrderFailsQuery) {
  // 1 / (a - a) raises 22012 for the first evaluated row.
  ptest::TestTable t = ptest::MakeTable("t", 500, 111, 10, 0, 64, false, false);
  for (ptest::Mode mode : ptest::kModes) {
    try {
      ptest::Run(mode, [&](PlanBuilder& b) {
        ScanSpec spec;
        spec.projections.push_back(
            Arith(ArithOp::kDiv, Constant(Value::Integer(1)), Arith(ArithOp::kSub, A(), A())));
        return b.Sink(b.Scan(*t.table, std::move(spec)));
      });
      ADD_FAILURE() << "no error in " << ptest::ModeName(mode);
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kDivisionByZero) << ptest::ModeName(mode);
    }
  }
}

}  // namespace
}  // namespace forktail
