// Frozen blocks (storage/table/block.h, "Frozen blocks"): every encoding
// round-trips random and edge data, reads on the frozen form equal reads on
// the plain one, images load back, and a damaged image is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "storage/storage.h"
#include "storage/table/fsst.h"

namespace forktail {
namespace {

TableSchema AllTypes() {
  return {"t",
          {{"b", Type::Boolean()},
           {"s", Type::SmallInt()},
           {"i", Type::Integer()},
           {"l", Type::BigInt()},
           {"x", Type::Double()},
           {"p", Type::Decimal(18, 2)},
           {"d", Type::Date()},
           {"ts", Type::Timestamp()},
           {"tz", Type::TimestampTz()},
           {"c", Type::Char(10)},
           {"v", Type::Varchar(20)},
           {"t", Type::Text()},
           {"j", Type::Jsonb()},
           {"same", Type::BigInt()},
           {"nulls", Type::Integer()},
           {"few", Type::Text()},
           {"comment", Type::Varchar(80)},
           {"runs", Type::BigInt()},
           {"short_runs", Type::SmallInt()}},
          {}};
}

constexpr int64_t kMaxDecimal18 = 999999999999999999;

// Memory for the strings DecodeColumn decompresses, alive as long as the test.
struct DecodeSpace {
  std::vector<std::unique_ptr<char[]>> chunks;
  StringSpace space = [this](size_t bytes) {
    chunks.emplace_back(new char[bytes]);
    return chunks.back().get();
  };
};

// Text made of TPC-H-like comment words: what FSST compresses.
std::string Comment(std::mt19937_64& rng, size_t words) {
  static const char* const kWords[] = {
      "furiously",   "carefully",    "quickly",      "slyly",    "blithely",  "ironic",    "final",
      "regular",     "express",      "special",      "pending",  "bold",      "even",      "silent",
      "deposits",    "packages",     "requests",     "accounts", "foxes",     "pinto",     "beans",
      "theodolites", "instructions", "dependencies", "excuses",  "platelets", "asymptotes"};
  std::string s;
  for (size_t w = 0; w < words; w++) {
    if (w > 0) s += ' ';
    s += kWords[rng() % std::size(kWords)];
  }
  return s;
}

// Row r of a block: random values, the types' extremes, NULLs (~10%), a
// constant column, an all-NULL column, a few distinct strings and long ones,
// and runs of equal values (run-length encoded: runs of 20 with NULLs among
// them, and runs of 37).
Row RandomRow(std::mt19937_64& rng, int r) {
  auto null_or = [&](Value v) { return rng() % 10 == 0 ? Value::Null(v.type()) : v; };
  const int edge = static_cast<int>(rng() % 20);
  auto pick = [&](int64_t lo, int64_t hi, int64_t random) {
    return edge == 0 ? lo : edge == 1 ? hi : random;
  };
  std::string text = rng() % 50 == 0 ? std::string(5000 + rng() % 3000, 'x')
                                     : std::string(rng() % 30, static_cast<char>('a' + rng() % 26));
  return {null_or(Value::Boolean(rng() % 2 == 0)),
          null_or(Value::SmallInt(static_cast<int16_t>(pick(std::numeric_limits<int16_t>::min(),
                                                            std::numeric_limits<int16_t>::max(),
                                                            static_cast<int16_t>(rng()))))),
          null_or(Value::Integer(static_cast<int32_t>(pick(std::numeric_limits<int32_t>::min(),
                                                           std::numeric_limits<int32_t>::max(),
                                                           static_cast<int32_t>(rng() % 100000))))),
          null_or(Value::BigInt(pick(std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max(), r * 3))),
          null_or(Value::Double(edge == 0 ? -0.0 : static_cast<double>(rng() % 1000) / 7)),
          null_or(Value::Decimal(pick(-kMaxDecimal18, kMaxDecimal18, rng() % 100000), 18, 2)),
          null_or(Value::Date(static_cast<int32_t>(8000 + rng() % 2500))),
          null_or(Value::Timestamp(pick(std::numeric_limits<int64_t>::min() / 2,
                                        std::numeric_limits<int64_t>::max() / 2,
                                        static_cast<int64_t>(rng() % 1000000000)))),
          null_or(Value::TimestampTz(static_cast<int64_t>(rng()))),
          null_or(Value::String(Type::Char(10), std::string(rng() % 3 == 0 ? "AIR" : "MAIL") +
                                                    std::string(rng() % 3 == 0 ? 7 : 6, ' '))),
          null_or(Value::String(Type::Varchar(20), "v" + std::to_string(rng() % 5000))),
          null_or(Value::Text(text)),
          null_or(Value::String(Type::Jsonb(), "{\"a\": " + std::to_string(rng() % 4) + "}")),
          Value::BigInt(42),
          Value::Null(Type::Integer()),
          Value::Text(rng() % 2 ? "" : "one"),
          null_or(Value::String(Type::Varchar(80), Comment(rng, 1 + rng() % 8))),
          null_or(Value::BigInt(1000000 + int64_t{r / 20} * 5)),
          Value::SmallInt(static_cast<int16_t>((r / 37) % 300 - 150))};
}

// A plain block of `rows` random rows, some deleted.
std::unique_ptr<Block> RandomBlock(std::shared_ptr<const BlockLayout> layout, uint64_t seed,
                                   uint32_t rows) {
  std::mt19937_64 rng(seed);
  std::unique_ptr<Block> block = Block::Create(layout, TableId(7), BlockNo(3));
  const size_t columns = layout->column_count();
  for (uint32_t r = 0; r < rows; r++) {
    Row row = RandomRow(rng, static_cast<int>(r));
    uint32_t bytes = 0;
    for (const Value& v : row)
      bytes += v.type().StoredAsString() && !v.is_null() ? v.GetString().size() : 0;
    if (!block->HasRoomFor(bytes)) break;
    SlotNo s = block->AppendSlot();
    for (size_t c = 0; c < columns; c++)
      block->SetCell(ColumnId(static_cast<uint16_t>(c)), s, row[c]);
    if (rng() % 16 == 0) block->SetDeleted(s, true);
  }
  return block;
}

void ExpectSameCells(const Block& a, const Block& b) {
  ASSERT_EQ(a.row_count(), b.row_count());
  ASSERT_EQ(a.live_count(), b.live_count());
  for (uint32_t r = 0; r < a.row_count(); r++) {
    const SlotNo s(r);
    ASSERT_EQ(a.IsDeleted(s), b.IsDeleted(s)) << "row " << r;
    for (size_t ci = 0; ci < a.layout().column_count(); ci++) {
      const ColumnId c(static_cast<uint16_t>(ci));
      ASSERT_EQ(a.IsNull(c, s), b.IsNull(c, s)) << "row " << r << " column " << ci;
      Value va = a.GetCell(c, s), vb = b.GetCell(c, s);
      ASSERT_EQ(va.is_null(), vb.is_null());
      if (va.is_null()) continue;
      ASSERT_EQ(CompareCell(va, vb), 0)
          << "row " << r << " column " << ci << ": " << va.ToString() << " vs " << vb.ToString();
      ASSERT_EQ(a.HashCellAt(c, s), b.HashCellAt(c, s));
      ASSERT_TRUE(b.CellEquals(c, s, va));
    }
  }
}

TEST(FrozenBlock, EveryEncodingRoundTripsRandomAndEdgeData) {
  auto layout = BlockLayout::Compute(AllTypes());
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::unique_ptr<Block> plain = RandomBlock(layout, seed, layout->capacity());
    std::unique_ptr<Block> frozen = Block::Freeze(*plain);
    ASSERT_TRUE(frozen->frozen());
    EXPECT_LT(frozen->memory_bytes(), kBlockSize);
    EXPECT_EQ(frozen->version(), plain->version());
    EXPECT_EQ(frozen->block_no(), plain->block_no());
    ExpectSameCells(*plain, *frozen);
    std::unique_ptr<Block> thawed = frozen->Thaw();
    ASSERT_FALSE(thawed->frozen());
    ExpectSameCells(*plain, *thawed);
    // The image loads back (sealed: with its checksum).
    frozen->Seal();
    std::unique_ptr<Block> loaded;
    ASSERT_TRUE(Block::FromImage(layout, frozen->ExportImage(), &loaded).ok());
    ASSERT_TRUE(loaded->frozen());
    ExpectSameCells(*plain, *loaded);
  }
}

// Values in long runs freeze to runs: the same values in another order (no
// runs) take more bytes. Short runs (l_orderkey's 4 lines an order) stay
// bit-packed, which scans decode faster.
TEST(FrozenBlock, RunsOfEqualValuesAreRunLengthEncoded) {
  const TableSchema schema{"r", {{"k", Type::BigInt()}}, {}};
  auto layout = BlockLayout::Compute(schema);
  // 10,000 rows of `distinct` values, in runs of 10,000 / distinct or mixed.
  auto frozen_of = [&](int64_t distinct, bool in_runs) {
    std::unique_ptr<Block> b = Block::Create(layout, TableId(1), BlockNo(0));
    for (int64_t r = 0; r < 10000; r++) {
      b->SetCell(ColumnId(0), b->AppendSlot(),
                 Value::BigInt(in_runs ? r * distinct / 10000 : r % distinct));
    }
    std::unique_ptr<Block> frozen = Block::Freeze(*b);
    ExpectSameCells(*b, *frozen);
    return frozen->memory_bytes();
  };
  // 9 bits a row packed (11,250 bytes); 313 runs of 9 + 14 bits (900).
  EXPECT_LT(frozen_of(313, true) + 5000, frozen_of(313, false));
  EXPECT_EQ(frozen_of(2500, true), frozen_of(2500, false));
}

TEST(FrozenBlock, DecodeColumnEqualsThePlainStripes) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> plain = RandomBlock(layout, 9, layout->capacity());
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  const BlockReadView view = plain->View();
  const uint32_t rows = plain->row_count();
  DecodeSpace space;
  for (size_t ci = 0; ci < layout->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const ColumnLayout& col = layout->column(c);
    for (uint32_t first = 0; first < rows; first += 1024) {
      const uint32_t count = std::min<uint32_t>(1024, rows - first);
      std::vector<std::string_view> views(count);
      std::vector<uint8_t> cells(uint64_t{count} * 16);
      void* out = col.type.StoredAsString() ? static_cast<void*>(views.data()) : cells.data();
      frozen->DecodeColumn(c, first, count, out, nullptr, 0, &space.space);
      const uint64_t* nulls = frozen->FrozenNullBitmap(c);
      for (uint32_t i = 0; i < count; i++) {
        const uint32_t r = first + i;
        const bool is_null = nulls != nullptr && TestBit(nulls, r);
        ASSERT_EQ(is_null, view.is_null(c, r)) << "column " << ci << " row " << r;
        if (is_null) continue;
        if (col.type.StoredAsString()) {
          ASSERT_EQ(views[i], view.string(c, r)) << "column " << ci << " row " << r;
        } else {
          ASSERT_EQ(std::memcmp(cells.data() + uint64_t{i} * col.width,
                                view.stripe<uint8_t>(c) + uint64_t{r} * col.width, col.width),
                    0)
              << "column " << ci << " row " << r;
        }
      }
    }
  }
}

TEST(FrozenBlock, DecodesSelectedRowsOnly) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> plain = RandomBlock(layout, 12, 3000);
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  const BlockReadView view = plain->View();
  const uint32_t sel[] = {0, 5, 63, 64, 700, 1975};
  for (size_t ci = 0; ci < layout->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const ColumnLayout& col = layout->column(c);
    std::vector<std::string_view> views(2048, "untouched");
    std::vector<uint8_t> cells(2048 * 16, 0xee);
    void* out = col.type.StoredAsString() ? static_cast<void*>(views.data()) : cells.data();
    DecodeSpace space;
    frozen->DecodeColumn(c, 1024, 1976, out, sel, 6, &space.space);
    for (uint32_t i : sel) {
      const uint32_t r = 1024 + i;
      if (view.is_null(c, r)) continue;
      if (col.type.StoredAsString()) {
        EXPECT_EQ(views[i], view.string(c, r)) << "column " << ci << " row " << r;
      } else {
        EXPECT_EQ(std::memcmp(cells.data() + uint64_t{i} * col.width,
                              view.stripe<uint8_t>(c) + uint64_t{r} * col.width, col.width),
                  0)
            << "column " << ci << " row " << r;
      }
    }
    // Row 1 is not selected: left as it was (6 of 1976 rows: decoded one by one).
    if (col.type.StoredAsString()) {
      EXPECT_EQ(views[1], "untouched");
    } else {
      EXPECT_EQ(cells[col.width], 0xee);
    }
  }
}

// SelectWhere on packed values keeps exactly the rows a comparison of the
// plain cells keeps (NULLs never), for every operator, constants inside and
// outside the column's range, dense and sparse selections.
TEST(FrozenBlock, PredicatesOnPackedValuesEqualThoseOnPlainCells) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> plain = RandomBlock(layout, 21, 5000);
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  const uint32_t rows = plain->row_count();
  std::mt19937_64 rng(5);
  const CellCompare ops[] = {CellCompare::kEq, CellCompare::kNe, CellCompare::kLt,
                             CellCompare::kLe, CellCompare::kGt, CellCompare::kGe};
  int checked = 0;
  for (size_t ci = 0; ci < layout->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const Type& type = layout->column(c).type;
    if (type.StoredAsString() || type.id == TypeId::kDouble || type.id == TypeId::kBoolean)
      continue;
    for (int trial = 0; trial < 12; trial++) {
      int64_t k = trial == 0   ? std::numeric_limits<int64_t>::min()
                  : trial == 1 ? std::numeric_limits<int64_t>::max()
                               : 0;
      if (trial >= 2) {
        const SlotNo s(static_cast<uint32_t>(rng() % rows));
        const int64_t v = plain->IsNull(c, s) ? 0 : plain->GetCell(c, s).GetInt();
        // v - 1, v or v + 1, without overflowing at the type's extremes.
        if (__builtin_add_overflow(v, int64_t{trial % 3 - 1}, &k)) k = v;
      }
      for (CellCompare op : ops) {
        for (uint32_t first = 0; first < rows; first += 2048) {
          const uint32_t count = std::min<uint32_t>(2048, rows - first);
          std::vector<uint32_t> sel;
          for (uint32_t i = 0; i < count; i++) {
            if (trial % 2 == 0 || rng() % 3 == 0) sel.push_back(i);
          }
          std::vector<uint32_t> expected;
          for (uint32_t i : sel) {
            const SlotNo s(first + i);
            if (plain->IsNull(c, s)) continue;
            const int64_t v = plain->GetCell(c, s).GetInt();
            const bool holds = op == CellCompare::kEq   ? v == k
                               : op == CellCompare::kNe ? v != k
                               : op == CellCompare::kLt ? v < k
                               : op == CellCompare::kLe ? v <= k
                               : op == CellCompare::kGt ? v > k
                                                        : v >= k;
            if (holds) expected.push_back(i);
          }
          std::vector<uint32_t> got(sel.size());
          uint32_t n = frozen->SelectWhere(c, op, k, first, count, sel.data(),
                                           static_cast<uint32_t>(sel.size()), got.data());
          got.resize(n);
          ASSERT_EQ(got, expected) << "column " << ci << " op " << static_cast<int>(op) << " k "
                                   << k << " first " << first;
          // In place, as scans call it (out == sel).
          std::vector<uint32_t> in_place = sel;
          n = frozen->SelectWhere(c, op, k, first, count, in_place.data(),
                                  static_cast<uint32_t>(in_place.size()), in_place.data());
          in_place.resize(n);
          ASSERT_EQ(in_place, expected)
              << "in place: column " << ci << " op " << static_cast<int>(op) << " k " << k;
          checked++;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);

  // SelectBetween: ranges between two values of the column, reversed ones
  // (none), and ranges reaching past the type's extremes.
  for (size_t ci = 0; ci < layout->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const Type& type = layout->column(c).type;
    if (type.StoredAsString() || type.id == TypeId::kDouble) continue;
    auto some_value = [&] {
      const SlotNo s(static_cast<uint32_t>(rng() % rows));
      return plain->IsNull(c, s) ? int64_t{0} : plain->GetCell(c, s).GetInt();
    };
    for (int trial = 0; trial < 10; trial++) {
      int64_t lo = some_value(), hi = some_value();
      if (trial % 3 != 2 && lo > hi) std::swap(lo, hi);  // every third may be reversed
      if (trial == 0) lo = std::numeric_limits<int64_t>::min();
      if (trial == 1) hi = std::numeric_limits<int64_t>::max();
      std::vector<uint32_t> expected;
      for (uint32_t i = 0; i < 2048 && i < rows; i++) {
        if (plain->IsNull(c, SlotNo(i))) continue;
        const int64_t v = plain->GetCell(c, SlotNo(i)).GetInt();
        if (lo <= v && v <= hi) expected.push_back(i);
      }
      const uint32_t count = std::min<uint32_t>(2048, rows);
      std::vector<uint32_t> got(count);
      for (uint32_t i = 0; i < count; i++) got[i] = i;
      got.resize(frozen->SelectBetween(c, lo, hi, 0, count, got.data(), count, got.data()));
      ASSERT_EQ(got, expected) << "column " << ci << " [" << lo << ", " << hi << "]";
    }
  }
}

// A dictionary column's strings come out sorted and distinct, and
// SelectCodes keeps exactly the rows whose string's code is in the set
// (NULL rows as asked), for dense and sparse selections, in place too.
TEST(FrozenBlock, DictionaryCodesSelectTheRowsOfTheirStrings) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> plain = RandomBlock(layout, 31, 5000);
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  const uint32_t rows = plain->row_count();
  std::mt19937_64 rng(9);
  int dictionaries = 0;
  for (size_t ci = 0; ci < layout->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    std::vector<std::string_view> dictionary;
    if (!layout->column(c).type.StoredAsString()) continue;
    if (!frozen->FrozenDictionary(c, &dictionary)) continue;
    dictionaries++;
    std::set<std::string> distinct;
    for (uint32_t r = 0; r < rows; r++) {
      if (!plain->IsNull(c, SlotNo(r))) {
        distinct.insert(std::string(plain->GetCell(c, SlotNo(r)).GetString()));
      }
    }
    ASSERT_EQ(std::vector<std::string>(dictionary.begin(), dictionary.end()),
              std::vector<std::string>(distinct.begin(), distinct.end()))
        << "column " << ci;
    for (int trial = 0; trial < 8; trial++) {
      // Trial 0 keeps no string, trial 1 every one, the others a third.
      std::vector<uint64_t> codes(dictionary.size() / 64 + 1, 0);
      for (size_t code = 0; code < dictionary.size(); code++) {
        if (trial == 1 || (trial > 1 && rng() % 3 == 0))
          codes[code / 64] |= uint64_t{1} << code % 64;
      }
      const bool keep_null = trial % 2 == 1;
      for (uint32_t first = 0; first < rows; first += 2048) {
        const uint32_t count = std::min<uint32_t>(2048, rows - first);
        std::vector<uint32_t> sel;
        for (uint32_t i = 0; i < count; i++) {
          if (trial % 4 < 2 || rng() % 3 == 0) sel.push_back(i);
        }
        std::vector<uint32_t> expected;
        for (uint32_t i : sel) {
          const SlotNo s(first + i);
          bool keep = keep_null;
          if (!plain->IsNull(c, s)) {
            const std::string value(plain->GetCell(c, s).GetString());
            const size_t code =
                std::lower_bound(dictionary.begin(), dictionary.end(), value) - dictionary.begin();
            keep = (codes[code / 64] >> code % 64) & 1;
          }
          if (keep) expected.push_back(i);
        }
        std::vector<uint32_t> got = sel;  // in place, as scans call it
        got.resize(frozen->SelectCodes(c, codes.data(), keep_null, first, count, got.data(),
                                       static_cast<uint32_t>(got.size()), got.data()));
        ASSERT_EQ(got, expected) << "column " << ci << " trial " << trial << " first " << first;
      }
    }
  }
  EXPECT_GE(dictionaries, 2);  // c (CHAR(10)) and few at least

  // A column of NULLs only: an empty dictionary; NULL rows stay when asked.
  const TableSchema schema{"n", {{"s", Type::Text()}}, {}};
  auto nulls_layout = BlockLayout::Compute(schema);
  std::unique_ptr<Block> all_null = Block::Create(nulls_layout, TableId(1), BlockNo(0));
  for (int r = 0; r < 100; r++)
    all_null->SetCell(ColumnId(0), all_null->AppendSlot(), Value::Null(Type::Text()));
  std::unique_ptr<Block> frozen_nulls = Block::Freeze(*all_null);
  std::vector<std::string_view> dictionary;
  ASSERT_TRUE(frozen_nulls->FrozenDictionary(ColumnId(0), &dictionary));
  EXPECT_TRUE(dictionary.empty());
  const uint64_t none = 0;
  std::vector<uint32_t> sel(100);
  for (uint32_t i = 0; i < 100; i++) sel[i] = i;
  EXPECT_EQ(
      frozen_nulls->SelectCodes(ColumnId(0), &none, false, 0, 100, sel.data(), 100, sel.data()),
      0u);
  for (uint32_t i = 0; i < 100; i++) sel[i] = i;
  EXPECT_EQ(
      frozen_nulls->SelectCodes(ColumnId(0), &none, true, 0, 100, sel.data(), 100, sel.data()),
      100u);
  // Other encodings have no dictionary.
  EXPECT_FALSE(frozen->FrozenDictionary(ColumnId(3), &dictionary));
}

// A column of comment text freezes to FSST: well under the plain bytes, the
// same strings through every read, and a damaged table, offset or code is
// refused or read without leaving the image.
// A block of (id, comment): comment text, some of it empty, some NULL;
// the text's bytes into *text_bytes.
std::unique_ptr<Block> CommentBlock(const std::shared_ptr<const BlockLayout>& layout,
                                    std::mt19937_64& rng, uint64_t* text_bytes) {
  std::unique_ptr<Block> plain = Block::Create(layout, TableId(7), BlockNo(1));
  for (uint32_t r = 0; r < layout->capacity(); r++) {
    const std::string comment = r % 97 == 0 ? std::string() : Comment(rng, 2 + rng() % 10);
    if (!plain->HasRoomFor(static_cast<uint32_t>(comment.size()))) break;
    const SlotNo s = plain->AppendSlot();
    plain->SetCell(ColumnId(0), s, Value::Integer(static_cast<int32_t>(r)));
    plain->SetCell(
        ColumnId(1), s,
        r % 89 == 0 ? Value::Null(Type::Varchar(120)) : Value::String(Type::Varchar(120), comment));
    *text_bytes += comment.size();
  }
  return plain;
}

const TableSchema& CommentSchema() {
  static const TableSchema schema{
      "c", {{"id", Type::Integer()}, {"comment", Type::Varchar(120)}}, {}};
  return schema;
}

TEST(FrozenBlock, CommentTextIsCompressedAndReadBack) {
  auto layout = BlockLayout::Compute(CommentSchema());
  std::mt19937_64 rng(17);
  uint64_t text_bytes = 0;
  std::unique_ptr<Block> plain = CommentBlock(layout, rng, &text_bytes);
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  EXPECT_LT(frozen->memory_bytes(), text_bytes / 2) << "of " << text_bytes << " bytes of text";
  ExpectSameCells(*plain, *frozen);
  ExpectSameCells(*plain, *frozen->Thaw());
  // Views decoded by range and by selection.
  const BlockReadView view = plain->View();
  DecodeSpace space;
  std::vector<std::string_view> views(plain->row_count());
  frozen->DecodeColumn(ColumnId(1), 0, plain->row_count(), views.data(), nullptr, 0, &space.space);
  for (uint32_t r = 0; r < plain->row_count(); r++) {
    if (view.is_null(ColumnId(1), r)) continue;
    ASSERT_EQ(views[r], view.string(ColumnId(1), r)) << "row " << r;
  }
  const std::string image = frozen->ExportImage();
  std::unique_ptr<Block> out;
  ASSERT_TRUE(Block::FromImage(layout, image, &out).ok());
  ExpectSameCells(*plain, *out);
  // Flipped bytes anywhere past the header and delete bitmap.
  const size_t regions = sizeof(BlockHeader) + layout->bitmap_bytes();
  int refused = 0;
  for (int trial = 0; trial < 300; trial++) {
    std::string bad = image;
    for (int k = 0; k < 3; k++) bad[regions + rng() % (bad.size() - regions)] ^= 1 + rng() % 255;
    if (!Block::FromImage(layout, bad, &out).ok()) {
      refused++;
      continue;
    }
    std::vector<std::string_view> got(out->row_count());
    DecodeSpace bad_space;
    out->DecodeColumn(ColumnId(1), 0, out->row_count(), got.data(), nullptr, 0, &bad_space.space);
    for (uint32_t r = 0; r < out->row_count(); r++) (void)out->GetCell(ColumnId(1), SlotNo(r));
  }
  // Most flips land in the codes and offsets, which every load checks.
  EXPECT_GT(refused, 20);
}

// LIKE '%a%b%' on the FSST codes of comment text: the rows of a selection
// whose string holds the literals in order (or, negated, does not), never
// the NULL ones; other encodings get no matcher.
TEST(FrozenBlock, ContainsOnCodesSelectsTheRowsHoldingTheLiterals) {
  auto layout = BlockLayout::Compute(CommentSchema());
  std::mt19937_64 rng(23);
  uint64_t text_bytes = 0;
  std::unique_ptr<Block> plain = CommentBlock(layout, rng, &text_bytes);
  std::unique_ptr<Block> frozen = Block::Freeze(*plain);
  const ColumnId comment(1);
  const uint32_t rows = plain->row_count();
  const std::vector<std::vector<std::string>> patterns = {{"special", "requests"},
                                                          {"requests", "special"},
                                                          {"ly"},
                                                          {"slyly ironic"},
                                                          {"s", "s", "s", "s"},
                                                          {"nowhere"},
                                                          {"", "e"},
                                                          {}};
  for (const auto& literals : patterns) {
    std::unique_ptr<fsst::ContainsMatcher> m = frozen->FsstContains(comment, literals);
    ASSERT_NE(m, nullptr);
    for (bool negated : {false, true}) {
      size_t kept = 0;
      for (uint32_t first = 0; first < rows; first += 2048) {
        const uint32_t count = std::min<uint32_t>(2048, rows - first);
        std::vector<uint32_t> sel;
        for (uint32_t i = 0; i < count; i++) {
          if (first == 0 || rng() % 3 == 0) sel.push_back(i);
        }
        std::vector<uint32_t> expected;
        for (uint32_t i : sel) {
          const SlotNo s(first + i);
          if (plain->IsNull(comment, s)) continue;
          const std::string value(plain->GetCell(comment, s).GetString());
          size_t at = 0;
          bool holds = true;
          for (const std::string& l : literals) {
            const size_t hit = value.find(l, at);
            holds = holds && hit != std::string::npos;
            if (holds) at = hit + l.size();
          }
          if (holds != negated) expected.push_back(i);
        }
        std::vector<uint32_t> got = sel;  // in place, as scans call it
        got.resize(frozen->SelectContaining(comment, *m, negated, first, got.data(),
                                            static_cast<uint32_t>(got.size()), got.data()));
        ASSERT_EQ(got, expected) << literals.size() << " literals, first " << first;
        kept += got.size();
      }
      if (literals.size() == 2 && literals[0] == "special") {
        EXPECT_GT(kept, 0u);
      }
    }
  }
  EXPECT_EQ(frozen->FsstContains(ColumnId(0), {"1"}), nullptr);
  std::unique_ptr<Block> few =
      Block::Freeze(*RandomBlock(BlockLayout::Compute(AllTypes()), 3, 500));
  std::vector<std::string_view> dictionary;
  ASSERT_TRUE(few->FrozenDictionary(ColumnId(9), &dictionary));
  EXPECT_EQ(few->FsstContains(ColumnId(9), {"a"}), nullptr);
}

TEST(FrozenBlock, TakesDeletesAndNoRoomForRows) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> frozen = Block::Freeze(*RandomBlock(layout, 4, 500));
  EXPECT_FALSE(frozen->HasRoomFor(0));
  const uint32_t live = frozen->live_count();
  SlotNo s(0);
  while (frozen->IsDeleted(s)) s = SlotNo(s.value() + 1);
  frozen->SetDeleted(s, true);
  EXPECT_EQ(frozen->live_count(), live - 1);
  EXPECT_TRUE(frozen->Thaw()->IsDeleted(s));
  frozen->SetDeleted(s, false);
  EXPECT_EQ(frozen->live_count(), live);
}

TEST(FrozenBlock, DamagedImagesAreRefused) {
  auto layout = BlockLayout::Compute(AllTypes());
  std::unique_ptr<Block> frozen = Block::Freeze(*RandomBlock(layout, 5, 2000));
  const std::string image = frozen->ExportImage();  // not sealed: no checksum to catch it
  std::unique_ptr<Block> out;
  EXPECT_FALSE(Block::FromImage(layout, image.substr(0, image.size() - 8), &out).ok());
  // Random bytes over the column directory and the regions: refused or, when
  // they happen to form valid encodings, read without leaving the image.
  std::mt19937_64 rng(11);
  const size_t directory = sizeof(BlockHeader) + layout->bitmap_bytes();
  int refused = 0;
  for (int trial = 0; trial < 300; trial++) {
    std::string bad = image;
    for (int k = 0; k < 4; k++) {
      size_t at = directory + rng() % (layout->column_count() * 32);
      bad[at] = static_cast<char>(rng());
    }
    if (!Block::FromImage(layout, bad, &out).ok()) {
      refused++;
      continue;
    }
    for (uint32_t r = 0; r < out->row_count(); r++) {
      for (size_t ci = 0; ci < layout->column_count(); ci++)
        (void)out->GetCell(ColumnId(ci), SlotNo(r));
    }
  }
  EXPECT_GT(refused, 150);
  // A sealed image with one flipped byte fails its checksum.
  frozen->Seal();
  std::string sealed = frozen->ExportImage();
  sealed[sealed.size() / 2] ^= 1;
  Status s = Block::FromImage(layout, sealed, &out);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace forktail
