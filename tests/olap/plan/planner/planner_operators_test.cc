// The physical operators the planner added (UnionAll, Values, NestedLoopJoin
// in every join type, Limit with OFFSET, DISTINCT as a key-only Aggregate)
// against naive references over random rows with NULLs and duplicates, empty
// inputs, under the real Scheduler: immediate, 1 worker, 2 workers.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/olap/execution/physical_testing.h"

namespace forktail {
namespace {

using ptest::Bag;
using ptest::Mode;

template <typename T>
std::vector<T> Concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(PlannerOperators, UnionAllPassesEveryInputRow) {
  ptest::TestTable t = ptest::MakeTable("t", 3000, 7, 40, 0.5, 256);
  ptest::TestTable u = ptest::MakeTable("u", 500, 8, 40, 0.5, 0);
  ptest::TestTable e = ptest::MakeTable("e", 0, 9, 40, 0.5, 0);
  auto want = Bag(Concat(Concat(t.live, u.live), t.live));
  for (Mode mode : ptest::kModes) {
    SCOPED_TRACE(ptest::ModeName(mode));
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      return b.Sink(
          b.UnionAll({b.Scan(*t.table), b.Scan(*e.table), b.Scan(*u.table), b.Scan(*t.table)}));
    });
    EXPECT_EQ(Bag(got), want);
    auto none = ptest::Run(mode, [&](PlanBuilder& b) {
      return b.Sink(b.UnionAll({b.Scan(*e.table), b.Scan(*e.table)}));
    });
    EXPECT_TRUE(none.empty());
  }
}

TEST(PlannerOperators, ValuesKeepsOrderTypesAndNulls) {
  std::vector<Type> types = {Type::Integer(), Type::Text(), Type::Decimal(10, 2), Type::Double()};
  std::vector<Row> rows;
  for (int i = 0; i < 5000; ++i) {  // more than two chunks
    rows.push_back({i % 11 == 0 ? Value::Null(Type::Integer()) : Value::Integer(i),
                    i % 7 == 0 ? Value::Null(Type::Text()) : Value::Text("v" + std::to_string(i)),
                    Value::Decimal(i * 3, 10, 2),
                    // An INTEGER value in a DOUBLE column is cast by the operator.
                    i % 2 == 0 ? Value::Integer(i) : Value::Double(i / 2.0)});
  }
  for (Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) { return b.Sink(b.Values(types, rows)); });
    ASSERT_EQ(got.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      Row want = rows[i];
      want[3] = want[3].CastTo(Type::Double());
      ASSERT_EQ(ptest::ShowRow(got[i]), ptest::ShowRow(want)) << i;
      ASSERT_EQ(got[i][3].type(), Type::Double());
    }
  }
}

TEST(PlannerOperators, ValuesWithoutColumnsFeedsAProjection) {
  // SELECT 1 + 2, 'x': one row of no columns, then a Select computes them.
  for (Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      std::vector<ExprPtr> proj;
      proj.push_back(
          Arith(ArithOp::kAdd, Constant(Value::Integer(1)), Constant(Value::Integer(2))));
      proj.push_back(Constant(Value::Text("x")));
      return b.Sink(b.Select(b.Values({}, {Row{}}), nullptr, std::move(proj)));
    });
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(ptest::ShowRow(got[0]), "3|'x'|");
    auto empty = ptest::Run(mode, [&](PlanBuilder& b) { return b.Sink(b.Values({}, {})); });
    EXPECT_TRUE(empty.empty());
  }
}

// Loop join of t (probe) with u (build), optionally on a = a, with the
// residual t.b < u.b (NULL: no match) or none.
struct LoopCase {
  LoopJoinType type;
  bool keyed;
  bool residual;
};

bool KeysMatch(const Row& p, const Row& b) {
  return !p[0].is_null() && !b[0].is_null() && p[0].GetInt() == b[0].GetInt();
}
bool ResidualRef(const Row& p, const Row& b) {
  return !p[1].is_null() && !b[1].is_null() && p[1].GetInt() < b[1].GetInt();
}

std::vector<Row> ReferenceLoopJoin(const LoopCase& c, const std::vector<Row>& probe,
                                   const std::vector<Row>& build) {
  std::vector<Row> out;
  for (const Row& p : probe) {
    size_t matches = 0;
    for (const Row& b : build) {
      if (c.keyed && !KeysMatch(p, b)) continue;
      if (c.residual && !ResidualRef(p, b)) continue;
      ++matches;
      if (c.type == LoopJoinType::kInner || c.type == LoopJoinType::kLeftOuter ||
          c.type == LoopJoinType::kSingle) {
        out.push_back(Concat(p, b));
      }
    }
    if (matches == 0 && (c.type == LoopJoinType::kLeftOuter || c.type == LoopJoinType::kSingle)) {
      Row r = p;
      for (const Value& v : build.empty() ? p : build[0]) r.push_back(Value::Null(v.type()));
      out.push_back(std::move(r));
    }
    if ((c.type == LoopJoinType::kSemi && matches > 0) ||
        (c.type == LoopJoinType::kAnti && matches == 0)) {
      out.push_back(p);
    }
  }
  return out;
}

std::vector<Row> RunLoopJoin(Mode mode, const LoopCase& c, const Table& t, const Table& u) {
  return ptest::Run(mode, [&](PlanBuilder& b) {
    ExprPtr residual;
    if (c.residual) residual = Compare(CompareOp::kLt, ptest::B(1), ptest::B(5 + 1));
    std::vector<uint32_t> keys = c.keyed ? std::vector<uint32_t>{0} : std::vector<uint32_t>{};
    return b.Sink(b.LoopJoin(b.Scan(t), b.Scan(u), c.type, keys, keys, std::move(residual)));
  });
}

TEST(PlannerOperators, NestedLoopJoinMatchesReference) {
  ptest::TestTable t = ptest::MakeTable("t", 200, 21, 30, 0.5, 64);
  ptest::TestTable u = ptest::MakeTable("u", 40, 22, 30, 0.5, 16);
  ptest::TestTable e = ptest::MakeTable("e", 0, 23, 30, 0.5, 0);
  for (LoopJoinType type :
       {LoopJoinType::kInner, LoopJoinType::kLeftOuter, LoopJoinType::kSemi, LoopJoinType::kAnti}) {
    for (bool keyed : {false, true}) {
      for (bool residual : {false, true}) {
        LoopCase c{type, keyed, residual};
        SCOPED_TRACE(std::string(LoopJoinTypeName(type)) + (keyed ? " keyed" : "") +
                     (residual ? " residual" : "") + " seeds 21/22");
        auto want = Bag(ReferenceLoopJoin(c, t.live, u.live));
        auto want_empty_build = Bag(ReferenceLoopJoin(c, t.live, {}));
        for (Mode mode : ptest::kModes) {
          EXPECT_EQ(Bag(RunLoopJoin(mode, c, *t.table, *u.table)), want) << ptest::ModeName(mode);
          // Empty build (left: NULL-extended rows, built from u's types).
          auto got = RunLoopJoin(mode, c, *t.table, *e.table);
          if (type == LoopJoinType::kLeftOuter) {
            EXPECT_EQ(got.size(), t.live.size());
            for (const Row& r : got) EXPECT_TRUE(r[5].is_null() && r[9].is_null());
          } else {
            EXPECT_EQ(Bag(got), want_empty_build) << ptest::ModeName(mode);
          }
          EXPECT_TRUE(RunLoopJoin(mode, c, *e.table, *u.table).empty());
        }
      }
    }
  }
}

// Single join: the build side has one row per key (a grouped subquery) or,
// without keys, one row at most; two matches for one probe row is 21000.
TEST(PlannerOperators, SingleJoinGivesOneRowOrNullOr21000) {
  ptest::TestTable t = ptest::MakeTable("t", 1500, 31, 20, 0.3, 256);
  std::vector<Type> types = {Type::Integer(), Type::BigInt()};
  std::vector<Row> unique_keys;
  for (int k = 0; k < 20; k += 2) unique_keys.push_back({Value::Integer(k), Value::BigInt(k * 10)});
  unique_keys.push_back({Value::Null(Type::Integer()), Value::BigInt(-1)});
  for (Mode mode : ptest::kModes) {
    SCOPED_TRACE(ptest::ModeName(mode));
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      return b.Sink(b.Select(b.LoopJoin(b.Scan(*t.table), b.Values(types, unique_keys),
                                        LoopJoinType::kSingle, {0}, {0}, nullptr),
                             nullptr, [] {
                               std::vector<ExprPtr> p;
                               p.push_back(ptest::A(0));
                               p.push_back(ColumnRef(6, Type::BigInt()));
                               return p;
                             }()));
    });
    std::vector<Row> want;
    for (const Row& r : t.live) {
      bool hit = !r[0].is_null() && r[0].GetInt() % 2 == 0;
      want.push_back({r[0], hit ? Value::BigInt(r[0].GetInt() * 10) : Value::Null(Type::BigInt())});
    }
    EXPECT_EQ(Bag(got), Bag(want));
    // Uncorrelated scalar subquery: one build row for every probe row.
    auto one = ptest::Run(mode, [&](PlanBuilder& b) {
      return b.Sink(b.LoopJoin(b.Scan(*t.table), b.Values({Type::BigInt()}, {{Value::BigInt(5)}}),
                               LoopJoinType::kSingle, {}, {}, nullptr));
    });
    EXPECT_EQ(one.size(), t.live.size());
    // Duplicate key 4: probe rows with a = 4 exist, so 21000.
    std::vector<Row> dup = unique_keys;
    dup.push_back({Value::Integer(4), Value::BigInt(0)});
    try {
      ptest::Run(mode, [&](PlanBuilder& b) {
        return b.Sink(b.LoopJoin(b.Scan(*t.table), b.Values(types, dup), LoopJoinType::kSingle, {0},
                                 {0}, nullptr));
      });
      ADD_FAILURE() << "no error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kCardinalityViolation);
      EXPECT_STREQ(e.what(), "more than one row returned by a subquery used as an expression");
    }
  }
}

TEST(PlannerOperators, SortThenLimitWithOffset) {
  ptest::TestTable t = ptest::MakeTable("t", 4000, 41, 1000, 0, 512);
  std::vector<Row> sorted = t.live;
  // ORDER BY b DESC (NULLs first), a ASC (NULLs last), c.
  std::stable_sort(sorted.begin(), sorted.end(), [](const Row& x, const Row& y) {
    if (x[1].is_null() != y[1].is_null()) return x[1].is_null();
    if (!x[1].is_null() && x[1].GetInt() != y[1].GetInt()) return x[1].GetInt() > y[1].GetInt();
    if (x[0].is_null() != y[0].is_null()) return y[0].is_null();
    if (!x[0].is_null() && x[0].GetInt() != y[0].GetInt()) return x[0].GetInt() < y[0].GetInt();
    return false;
  });
  std::vector<PhysicalSortKey> keys = {{1, true, -1}, {0, false, -1}};
  for (auto [limit, offset] : std::vector<std::pair<uint64_t, uint64_t>>{
           {10, 0}, {10, 5}, {kNoLimit, 3990}, {3000, 2500}, {5, 10000}, {0, 0}}) {
    for (Mode mode : ptest::kModes) {
      SCOPED_TRACE(std::to_string(limit) + " offset " + std::to_string(offset));
      auto got = ptest::Run(mode, [&](PlanBuilder& b) {
        uint64_t k = limit == kNoLimit ? kNoLimit : limit + offset;
        return b.Sink(b.Limit(b.Sort(b.Scan(*t.table), keys, k), limit, offset));
      });
      size_t first = std::min<size_t>(offset, sorted.size());
      size_t last =
          limit == kNoLimit ? sorted.size() : std::min<size_t>(sorted.size(), offset + limit);
      ASSERT_EQ(got.size(), last - first);
      for (size_t i = 0; i < got.size(); ++i) {
        // Keys decide the order; ties may come in any order, so compare keys.
        EXPECT_EQ(ptest::Show(got[i][1]) + ptest::Show(got[i][0]),
                  ptest::Show(sorted[first + i][1]) + ptest::Show(sorted[first + i][0]));
      }
    }
  }
  // Without ORDER BY, LIMIT/OFFSET over many blocks passes exactly that many rows.
  for (Mode mode : ptest::kModes) {
    auto got = ptest::Run(
        mode, [&](PlanBuilder& b) { return b.Sink(b.Limit(b.Scan(*t.table), 100, 1000)); });
    EXPECT_EQ(got.size(), 100u);
  }
}

TEST(PlannerOperators, DistinctIsAKeyOnlyAggregate) {
  ptest::TestTable t = ptest::MakeTable("t", 6000, 51, 60, 0.7, 512);
  std::set<std::string> want;
  for (const Row& r : t.live) want.insert(ptest::Show(r[0]) + "|" + ptest::Show(r[2]) + "|");
  for (Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      return b.Sink(b.Aggregate(b.Scan(*t.table), {0, 2}, {}));
    });
    auto bag = Bag(got);
    EXPECT_EQ(std::set<std::string>(bag.begin(), bag.end()), want);
    EXPECT_EQ(bag.size(), want.size()) << "duplicates in DISTINCT output";
    // DISTINCT over an empty input: no row (unlike a global aggregate).
    ptest::TestTable e = ptest::MakeTable("e", 0, 1, 1, 0, 0);
    auto none = ptest::Run(
        mode, [&](PlanBuilder& b) { return b.Sink(b.Aggregate(b.Scan(*e.table), {0}, {})); });
    EXPECT_TRUE(none.empty());
  }
}

TEST(PlannerOperators, OperatorStatsCountOutputRows) {
  ptest::TestTable t = ptest::MakeTable("t", 3000, 61, 40, 0.5, 256);
  std::shared_ptr<OperatorStats> scan, select;
  auto got = ptest::Run(Mode::kTwoWorkers, [&](PlanBuilder& b) {
    OperatorId s = b.Scan(*t.table);
    OperatorId f = b.Select(s, Compare(CompareOp::kGt, ptest::B(1), Constant(Value::BigInt(100))));
    scan = b.stats(s);
    select = b.stats(f);
    return b.Sink(f);
  });
  EXPECT_EQ(scan->rows_out.load(), t.live.size());
  EXPECT_EQ(select->rows_out.load(), got.size());
  EXPECT_GT(scan->blocks_out.load(), 1u);
}

}  // namespace
}  // namespace forktail
