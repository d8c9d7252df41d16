// Differential tests: every expression kernel against RefEval on random rows
// with NULLs, duplicates and empty input; filters (Select) against the
// reference's TRUE rows.
#include <gtest/gtest.h>

#include "tests/olap/execution/reference_eval.h"

namespace forktail {
namespace {

using test::RefEval;

// Columns: 0 a INTEGER, 1 b BIGINT, 2 d DOUBLE, 3 m DECIMAL(10,2), 4 s TEXT,
// 5 dt DATE, 6 c INTEGER (small, with zeros), 7 ch CHAR(6), 8 ts TIMESTAMP.
std::vector<test::ColumnGen> Gens() {
  return {{Type::Integer(), 0.1, 1000},  {Type::BigInt(), 0.1, 100000},
          {Type::Double(), 0.1, 1000},   {Type::Decimal(10, 2), 0.1, 5000},
          {Type::Text(), 0.1, 40},       {Type::Date(), 0.1, 3000},
          {Type::Integer(), 0.2, 5},     {Type::Char(6), 0.1, 30},
          {Type::Timestamp(), 0.1, 3000}};
}
std::vector<Type> Types() {
  std::vector<Type> t;
  for (auto& g : Gens()) t.push_back(g.type);
  return t;
}

ExprPtr Col(uint32_t i) { return ColumnRef(i, Types()[i]); }
ExprPtr Int(int32_t v) { return Constant(Value::Integer(v)); }
ExprPtr Str(const char* s) { return Constant(Value::Text(s)); }

struct TestCase {
  std::string name;
  std::function<ExprPtr()> make;
};

std::vector<TestCase> Cases() {
  auto nonzero_c = [] { return Compare(CompareOp::kNe, Col(6), Int(0)); };
  return {
      {"a+b", [] { return Arith(ArithOp::kAdd, Col(0), Col(1)); }},
      {"a-b*2", [] { return Arith(ArithOp::kSub, Col(0), Arith(ArithOp::kMul, Col(1), Int(2))); }},
      {"a*a", [] { return Arith(ArithOp::kMul, Col(0), Col(0)); }},
      {"case b/c",
       [=] {
         std::vector<std::pair<ExprPtr, ExprPtr>> w;
         w.emplace_back(nonzero_c(), Arith(ArithOp::kDiv, Col(1), Col(6)));
         return Case(std::move(w), Arith(ArithOp::kMod, Col(0), Int(7)));
       }},
      {"case a%c",
       [=] {
         std::vector<std::pair<ExprPtr, ExprPtr>> w;
         w.emplace_back(nonzero_c(), Arith(ArithOp::kMod, Col(0), Col(6)));
         return Case(std::move(w), nullptr);
       }},
      {"m+a", [] { return Arith(ArithOp::kAdd, Col(3), Col(0)); }},
      {"m*m", [] { return Arith(ArithOp::kMul, Col(3), Col(3)); }},
      {"m-1.25", [] { return Arith(ArithOp::kSub, Col(3), Constant(Value::Decimal(125, 3, 2))); }},
      {"case m/c",
       [=] {
         std::vector<std::pair<ExprPtr, ExprPtr>> w;
         w.emplace_back(nonzero_c(), Arith(ArithOp::kDiv, Col(3), Col(6)));
         return Case(std::move(w), nullptr);
       }},
      {"d*2.5+a",
       [] {
         return Arith(ArithOp::kAdd, Arith(ArithOp::kMul, Col(2), Constant(Value::Double(2.5))),
                      Col(0));
       }},
      {"a<b", [] { return Compare(CompareOp::kLt, Col(0), Col(1)); }},
      {"a>=c", [] { return Compare(CompareOp::kGe, Col(0), Col(6)); }},
      {"m<=a", [] { return Compare(CompareOp::kLe, Col(3), Col(0)); }},
      {"d>m", [] { return Compare(CompareOp::kGt, Col(2), Col(3)); }},
      {"s='s3'", [] { return Compare(CompareOp::kEq, Col(4), Str("s3")); }},
      {"s<>'s3'", [] { return Compare(CompareOp::kNe, Col(4), Str("s3")); }},
      {"ch='s7 '",
       [] {
         return Compare(CompareOp::kEq, Col(7), Constant(Value::String(Type::Char(6), "s7 ")));
       }},
      {"dt<ts", [] { return Compare(CompareOp::kLt, Col(5), Col(8)); }},
      {"and/or/not",
       [] {
         return Or(
             And(Compare(CompareOp::kGt, Col(0), Int(0)), Compare(CompareOp::kLt, Col(6), Int(3))),
             Not(Compare(CompareOp::kEq, Col(4), Str("s1"))));
       }},
      {"a is null", [] { return IsNull(Col(0)); }},
      {"s is not null", [] { return IsNull(Col(4), true); }},
      {"a in",
       [] {
         return In(Col(6), {Value::Integer(1), Value::Integer(3)});
       }},
      {"a not in null",
       [] {
         return In(Col(6), {Value::Integer(1), Value::Null(Type::Integer())}, true);
       }},
      {"s in many",
       [] {
         std::vector<Value> l;
         for (int i = 0; i < 20; i += 2) l.push_back(Value::Text("s" + std::to_string(i)));
         return In(Col(4), std::move(l));
       }},
      {"like prefix", [] { return Like(Col(4), "s1%"); }},
      {"like suffix esc", [] { return Like(Col(4), "%ab\\%c"); }},
      {"like contains", [] { return Like(Col(4), "%1%"); }},
      {"like general", [] { return Like(Col(4), "_s%1_%"); }},
      {"not like", [] { return Like(Col(4), "s_", true); }},
      {"case multi",
       [] {
         std::vector<std::pair<ExprPtr, ExprPtr>> w;
         w.emplace_back(Compare(CompareOp::kLt, Col(0), Int(-100)), Str("low"));
         w.emplace_back(Compare(CompareOp::kLt, Col(0), Int(100)), Col(4));
         return Case(std::move(w), Str("high"));
       }},
      {"cast a double", [] { return Cast(Col(0), Type::Double()); }},
      {"cast m int", [] { return Cast(Col(3), Type::Integer()); }},
      {"cast m dec(12,1)", [] { return Cast(Col(3), Type::Decimal(12, 1)); }},
      {"cast a text", [] { return Cast(Col(0), Type::Text()); }},
      {"cast m text", [] { return Cast(Col(3), Type::Text()); }},
      {"cast d dec", [] { return Cast(Col(2), Type::Decimal(12, 2)); }},
      {"cast dt ts", [] { return Cast(Col(5), Type::Timestamp()); }},
      {"dt + 1 mon 3 days",
       [] {
         return DateAdd(Col(5), Interval{1, 3, 0});
       }},
      {"dt - 13 mon",
       [] {
         return DateAdd(Col(5), Interval{13, 0, 0}, true);
       }},
      {"ts + 2h",
       [] {
         return DateAdd(Col(8), Interval{0, 1, 7200000000LL});
       }},
      {"extract year", [] { return Extract(DateField::kYear, Col(5)); }},
      {"extract month", [] { return Extract(DateField::kMonth, Col(5)); }},
      {"extract day", [] { return Extract(DateField::kDay, Col(5)); }},
      {"extract quarter", [] { return Extract(DateField::kQuarter, Col(5)); }},
      {"extract dow", [] { return Extract(DateField::kDow, Col(5)); }},
      {"extract doy", [] { return Extract(DateField::kDoy, Col(5)); }},
      {"extract hour ts", [] { return Extract(DateField::kHour, Col(8)); }},
      {"substring 2 for 3", [] { return Substring(Col(4), Int(2), Int(3)); }},
      {"substring 0 for 2", [] { return Substring(Col(4), Int(0), Int(2)); }},
      {"substring from c", [] { return Substring(Col(4), Col(6), nullptr); }},
      {"coalesce",
       [] {
         std::vector<ExprPtr> a;
         a.push_back(Col(0));
         a.push_back(Col(6));
         a.push_back(Int(-1));
         return Coalesce(std::move(a));
       }},
  };
}

void CheckAll(uint64_t seed, size_t n, uint32_t chunk_rows) {
  auto rows = test::RandomRows(Gens(), n, seed);
  auto chunks = test::ToChunks(Types(), rows, chunk_rows);
  for (const TestCase& c : Cases()) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " expr " + c.name);
    ExprPtr e = c.make();
    ExpressionExecutor exec(*e);
    size_t base = 0;
    for (DataChunk& chunk : chunks) {
      // Every other chunk carries a selection (odd rows), as after a filter.
      if (base / chunk_rows % 2 == 1) {
        uint32_t k = 0;
        for (uint32_t i = 1; i < chunk.size(); i += 2) chunk.selection()[k++] = i;
        chunk.SetSelectionCount(k);
      } else {
        chunk.ClearSelection();
      }
      const Vector& v = exec.Execute(chunk);
      Rows live = chunk.rows();
      for (uint32_t k = 0; k < live.count; ++k) {
        uint32_t i = live[k];
        Value want = RefEval(*e, rows[base + i]);
        ASSERT_EQ(test::Show(test::ValueAt(v, i)), test::Show(want))
            << "row " << base + i << " " << test::ShowRow(rows[base + i]);
      }
      if (e->type.id == TypeId::kBoolean) {
        std::vector<uint32_t> sel(kVectorSize);
        uint32_t got = exec.Select(chunk, live, sel.data());
        std::vector<uint32_t> want;
        for (uint32_t k = 0; k < live.count; ++k) {
          if (test::IsTrue(RefEval(*e, rows[base + live[k]]))) want.push_back(live[k]);
        }
        ASSERT_EQ(std::vector<uint32_t>(sel.begin(), sel.begin() + got), want);
      }
      base += chunk.size();
    }
  }
}

TEST(Expression, MatchesReference) {
  for (uint64_t seed : {1, 2, 3}) CheckAll(seed, 5000, kVectorSize);
}

TEST(Expression, SmallChunksAndEmpty) {
  CheckAll(7, 300, 37);
  CheckAll(8, 0, kVectorSize);
}

// A constant's vector is filled on first use for the rows that use reaches
// (expression_executor.cc): later chunks that reach further rows must see
// the constant there too.
TEST(Expression, ConstantsReachEveryRowAfterASmallFirstUse) {
  auto rows = test::RandomRows(Gens(), 3 * kVectorSize, 11);
  auto chunks = test::ToChunks(Types(), rows, kVectorSize);
  ExprPtr e = Arith(ArithOp::kAdd, Col(0), Int(7));
  ExprPtr text = Compare(CompareOp::kNe, Col(4), Str("zz"));
  ExpressionExecutor exec(*e);
  ExpressionExecutor text_exec(*text);
  std::vector<std::vector<uint32_t>> selections = {{3}, {}, {kVectorSize - 1}};
  for (size_t c = 0; c < chunks.size(); c++) {
    DataChunk& chunk = chunks[c];
    if (selections[c].empty()) {
      chunk.ClearSelection();
    } else {
      for (size_t k = 0; k < selections[c].size(); k++) chunk.selection()[k] = selections[c][k];
      chunk.SetSelectionCount(static_cast<uint32_t>(selections[c].size()));
    }
    const Vector& v = exec.Execute(chunk);
    const Vector& t = text_exec.Execute(chunk);
    Rows live = chunk.rows();
    for (uint32_t k = 0; k < live.count; ++k) {
      const Row& row = rows[c * kVectorSize + live[k]];
      ASSERT_EQ(test::Show(test::ValueAt(v, live[k])), test::Show(RefEval(*e, row)));
      ASSERT_EQ(test::Show(test::ValueAt(t, live[k])), test::Show(RefEval(*text, row)));
    }
  }
}

void ExpectError(const Expression& e, const DataChunk& chunk, const char* state) {
  ExpressionExecutor exec(e);
  try {
    exec.Execute(chunk);
    FAIL() << "no error, expected " << state;
  } catch (const DbError& err) {
    EXPECT_STREQ(err.sqlstate(), state) << err.what();
  }
}

TEST(Expression, Errors) {
  std::vector<Row> rows = {{Value::Integer(INT32_MAX), Value::BigInt(0),
                            Value::Decimal(99999999, 10, 2), Value::Text("abc")}};
  std::vector<Type> types = {Type::Integer(), Type::BigInt(), Type::Decimal(10, 2), Type::Text()};
  auto chunks = test::ToChunks(types, rows);
  ExpectError(*Arith(ArithOp::kAdd, ColumnRef(0, types[0]), Int(1)), chunks[0], "22003");
  ExpectError(*Arith(ArithOp::kDiv, ColumnRef(1, types[1]), ColumnRef(1, types[1])), chunks[0],
              "22012");
  ExpectError(*Arith(ArithOp::kMod, ColumnRef(0, types[0]), Int(0)), chunks[0], "22012");
  ExpectError(*Arith(ArithOp::kDiv, Constant(Value::Double(1)), Constant(Value::Double(0))),
              chunks[0], "22012");
  ExpectError(*Cast(ColumnRef(2, types[2]), Type::Decimal(5, 2)), chunks[0], "22003");
  ExpectError(*Cast(ColumnRef(3, types[3]), Type::Integer()), chunks[0], "22P02");
  ExpectError(*Cast(ColumnRef(3, types[3]), Type::Varchar(2)), chunks[0], "22001");
  ExpectError(*Substring(ColumnRef(3, types[3]), Int(1), Int(-1)), chunks[0], "22011");
  ExpectError(*Arith(ArithOp::kMul, ColumnRef(2, types[2]),
                     Constant(Value::Decimal(999999999999999LL, 18, 0))),
              chunks[0], "22003");
  EXPECT_THROW(Arith(ArithOp::kAdd, ColumnRef(3, types[3]), Int(1)), DbError);
}

TEST(Expression, ZeroCopyStripeWrap) {
  // A block stripe of 5000 INTEGERs with a null bitmap, sliced into vectors.
  std::vector<int32_t> stripe(5000);
  std::vector<uint64_t> nulls((5000 + 63) / 64 + kVectorSize / 64, 0);
  for (int i = 0; i < 5000; ++i) stripe[i] = i;
  nulls[4100 / 64] |= uint64_t{1} << (4100 % 64);
  ExprPtr pred = Compare(CompareOp::kGe, ColumnRef(0, Type::Integer()), Int(4090));
  ExpressionExecutor exec(*pred);
  uint32_t total = 0;
  for (uint32_t first = 0; first < 5000; first += kVectorSize) {
    DataChunk chunk;
    Vector v;
    const uint32_t count = std::min<uint32_t>(kVectorSize, 5000 - first);
    v.WrapStripe(Type::Integer(), stripe.data(), nulls.data(), first, count);
    EXPECT_EQ(v.data<int32_t>(), stripe.data() + first);
    // Only the chunk holding row 4100 keeps a bitmap: the others take the
    // kernels' no-NULL loops.
    EXPECT_EQ(v.nulls() != nullptr, first <= 4100 && 4100 < first + count) << first;
    chunk.AddColumn(std::move(v));
    chunk.set_size(count);
    exec.Filter(&chunk);
    total += chunk.count();
  }
  EXPECT_EQ(total, 5000u - 4090 - 1);
}

}  // namespace
}  // namespace forktail
