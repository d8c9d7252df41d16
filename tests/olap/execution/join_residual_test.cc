// Differential tests of hash joins with a residual (non-equi) condition:
// JoinProbe over JoinHashTable, 1 and 2 threads, compaction off / fixed,
// against a nested loop over every (probe, build) pair that evaluates the
// same bound expression row by row (tests/olap/execution/reference_eval.h).
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "olap/execution/join/join_probe.h"
#include "tests/olap/execution/reference_eval.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

// Both sides: 0 k1 INTEGER, 1 k2 TEXT, 2 v BIGINT, 3 s TEXT. The build keeps
// payload (v, s), so the residual's pair row is
//   0..3 probe k1 k2 v s, 4 build v, 5 build s.
std::vector<test::ColumnGen> Gens(int64_t domain, double zipf) {
  return {{Type::Integer(), 0.1, domain, zipf},
          {Type::Text(), 0.05, 2},
          {Type::BigInt(), 0.15, 20},
          {Type::Text(), 0.1, 6}};
}
std::vector<Type> Types() { return {Type::Integer(), Type::Text(), Type::BigInt(), Type::Text()}; }
constexpr uint32_t kP = 4;

ExprPtr PV() { return ColumnRef(2, Type::BigInt()); }
ExprPtr PS() { return ColumnRef(3, Type::Text()); }
ExprPtr BV() { return ColumnRef(kP, Type::BigInt()); }
ExprPtr BS() { return ColumnRef(kP + 1, Type::Text()); }

// The residuals under test.
std::vector<ExprPtr> Residuals() {
  std::vector<ExprPtr> r;
  r.push_back(Compare(CompareOp::kLt, PV(), BV()));  // p.v < b.v
  r.push_back(Compare(CompareOp::kNe, PS(), BS()));  // p.s <> b.s (Q21)
  r.push_back(
      Or(Compare(CompareOp::kGt, Arith(ArithOp::kAdd, PV(), BV()), Constant(Value::BigInt(5))),
         IsNull(BS())));  // p.v + b.v > 5 OR b.s IS NULL
  r.push_back(Compare(CompareOp::kEq, Constant(Value::BigInt(1)), Constant(Value::BigInt(1))));
  r.push_back(Compare(CompareOp::kEq, Constant(Value::BigInt(1)), Constant(Value::BigInt(2))));
  return r;
}

bool NullKey(const Row& r) { return r[0].is_null() || r[1].is_null(); }
bool KeysEqual(const Row& a, const Row& b) {
  return !NullKey(a) && !NullKey(b) && a[0].Compare(b[0]) == 0 && a[1].Compare(b[1]) == 0;
}

std::multiset<std::string> Reference(JoinType type, const Expression& residual,
                                     const std::vector<Row>& build, const std::vector<Row>& probe) {
  std::multiset<std::string> out;
  for (const Row& p : probe) {
    Row head = {p[0], p[1], p[3]};
    int matches = 0;
    for (const Row& b : build) {
      if (!KeysEqual(p, b)) continue;
      Row pair = p;
      pair.push_back(b[2]);
      pair.push_back(b[3]);
      if (!test::IsTrue(test::RefEval(residual, pair))) continue;
      ++matches;
      if (type == JoinType::kInner || type == JoinType::kLeftOuter) {
        out.insert(test::ShowRow({p[0], p[1], p[3], b[2], b[3]}));
      }
    }
    if ((type == JoinType::kLeftOuter && matches == 0)) {
      out.insert(test::ShowRow(
          {p[0], p[1], p[3], Value::Null(Type::BigInt()), Value::Null(Type::Text())}));
    }
    if ((type == JoinType::kSemi && matches > 0) || (type == JoinType::kAnti && matches == 0)) {
      out.insert(test::ShowRow(head));
    }
  }
  return out;
}

std::multiset<std::string> RunJoin(JoinType type, const Expression* residual, int threads,
                                   CompactionPolicy policy, const std::vector<DataChunk>& build,
                                   const std::vector<DataChunk>& probe) {
  std::vector<Type> t = Types();
  JoinHashTable table({t[0], t[1]}, {0, 1}, {t[2], t[3]}, {2, 3}, threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      for (size_t c = i; c < build.size(); c += threads) table.Add(i, build[c]);
    });
  }
  for (auto& th : pool) th.join();
  pool.clear();
  for (int i = 0; i < threads; ++i) pool.emplace_back([&, i] { table.Finalize(i); });
  for (auto& th : pool) th.join();
  pool.clear();
  std::vector<std::multiset<std::string>> outs(threads);
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      JoinProbe probe_op(&table, type, {0, 1}, {0, 1, 3}, {t[0], t[1], t[3]}, policy, residual);
      auto emit = [&](const DataChunk& c) {
        for (auto& line : test::ChunkRows(c)) outs[i].insert(line);
      };
      for (size_t c = i; c < probe.size(); c += threads) probe_op.Probe(probe[c], emit);
      probe_op.Finish(emit);
    });
  }
  for (auto& th : pool) th.join();
  std::multiset<std::string> all;
  for (auto& o : outs) all.insert(o.begin(), o.end());
  return all;
}

constexpr JoinType kTypes[] = {JoinType::kInner, JoinType::kLeftOuter, JoinType::kSemi,
                               JoinType::kAnti};

void Check(uint64_t seed, size_t n_build, size_t n_probe, int64_t domain, double zipf) {
  auto build_rows = test::RandomRows(Gens(domain, zipf), n_build, seed);
  auto probe_rows = test::RandomRows(Gens(domain * 2, zipf), n_probe, seed + 1000);
  auto build = test::ToChunks(Types(), build_rows, 300);
  auto probe = test::ToChunks(Types(), probe_rows, 700);
  std::vector<ExprPtr> residuals = Residuals();
  for (size_t e = 0; e < residuals.size(); ++e) {
    for (JoinType type : kTypes) {
      auto want = Reference(type, *residuals[e], build_rows, probe_rows);
      // 1 thread without compaction, 2 threads with.
      for (int threads : {1, 2}) {
        auto policy = threads == 1 ? CompactionPolicy::Off() : CompactionPolicy::Fixed(1024);
        ASSERT_EQ(RunJoin(type, residuals[e].get(), threads, policy, build, probe), want)
            << "seed " << seed << " residual " << e << " type " << static_cast<int>(type)
            << " threads " << threads;
      }
    }
  }
}

TEST(JoinResidual, Uniform) { Check(31, 300, 700, 60, 0); }
// Few keys, many duplicates per key: one probe chunk's candidate pairs span
// several kVectorSize batches.
TEST(JoinResidual, ZipfManyCandidates) { Check(32, 400, 250, 4, 1.2); }
TEST(JoinResidual, EmptySides) {
  Check(33, 0, 300, 20, 0);
  Check(34, 200, 0, 20, 0);
}

TEST(JoinResidual, TrueResidualEqualsKeysOnly) {
  auto build_rows = test::RandomRows(Gens(50, 0), 300, 35);
  auto probe_rows = test::RandomRows(Gens(100, 0), 600, 36);
  auto build = test::ToChunks(Types(), build_rows);
  auto probe = test::ToChunks(Types(), probe_rows);
  ExprPtr always = Compare(CompareOp::kEq, Constant(Value::BigInt(1)), Constant(Value::BigInt(1)));
  for (JoinType type : kTypes) {
    EXPECT_EQ(RunJoin(type, always.get(), 2, CompactionPolicy::Off(), build, probe),
              RunJoin(type, nullptr, 2, CompactionPolicy::Off(), build, probe))
        << static_cast<int>(type);
  }
}

TEST(JoinResidual, NullAwareAntiRejected) {
  std::vector<Type> t = Types();
  JoinHashTable table({t[0], t[1]}, {0, 1}, {t[2], t[3]}, {2, 3}, 1);
  table.Finalize(0);
  ExprPtr r = Compare(CompareOp::kLt, PV(), BV());
  try {
    JoinProbe probe(&table, JoinType::kNullAwareAnti, {0, 1}, {0}, {t[0]}, CompactionPolicy::Off(),
                    r.get());
    FAIL() << "expected 0A000";
  } catch (const DbError& e) {
    EXPECT_EQ(e.sqlstate(), std::string(sqlstate::kFeatureNotSupported));
  }
}

TEST(JoinResidual, ValidateChecksColumnsAndType) {
  std::vector<Type> t = Types();
  std::vector<Type> payload = {t[2], t[3]};
  EXPECT_NO_THROW(JoinResidual::Validate(*Compare(CompareOp::kLt, PV(), BV()), t, payload));
  EXPECT_THROW(JoinResidual::Validate(*Compare(CompareOp::kLt, PV(), ColumnRef(6, Type::BigInt())),
                                      t, payload),
               DbError);
  EXPECT_THROW(JoinResidual::Validate(*Compare(CompareOp::kEq, ColumnRef(5, Type::BigInt()), BV()),
                                      t, payload),
               DbError);
  EXPECT_THROW(JoinResidual::Validate(*PV(), t, payload), DbError);
}

}  // namespace
}  // namespace forktail
