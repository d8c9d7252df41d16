// EvaluateWindow (olap/window_function.h) against a row-at-a-time reference:
// random partition / order keys (ties and NULLs), random ROWS frames and the
// default RANGE frame, for the frame-aware functions (count, sum, min, max,
// first_value, last_value, nth_value) and the ranking ones. Fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "olap/window_function.h"

namespace forktail {
namespace {

struct Row3 {
  std::optional<int> p, o, v;
};

// Rows sorted by (p, o), NULLs last, in chunks of kVectorSize.
std::vector<DataChunk> ToChunks(const std::vector<Row3>& rows) {
  std::vector<DataChunk> chunks;
  for (size_t base = 0; base < rows.size(); base += kVectorSize) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(kVectorSize, rows.size() - base));
    DataChunk c({Type::Integer(), Type::Integer(), Type::Integer()});
    for (uint32_t i = 0; i < n; ++i) {
      const Row3& r = rows[base + i];
      const std::optional<int>* f[3] = {&r.p, &r.o, &r.v};
      for (int k = 0; k < 3; ++k) {
        Vector& v = c.column(k);
        if (f[k]->has_value()) {
          v.mutable_data<int32_t>()[i] = **f[k];
        } else {
          v.SetNull(i, true);
        }
      }
    }
    c.set_size(n);
    chunks.push_back(std::move(c));
  }
  return chunks;
}

// The frame [s, e) of row r, computed by scanning (the definition).
std::pair<int64_t, int64_t> RefFrame(const std::vector<Row3>& rows, const WindowFrame& f,
                                     int64_t r) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t ps = r, pe = r + 1, gs = r, ge = r + 1;
  while (ps > 0 && rows[ps - 1].p == rows[r].p) --ps;
  while (pe < n && rows[pe].p == rows[r].p) ++pe;
  while (gs > ps && rows[gs - 1].o == rows[r].o) --gs;
  while (ge < pe && rows[ge].o == rows[r].o) ++ge;
  auto bound = [&](FrameBound k, int64_t off, bool end) {
    switch (k) {
      case FrameBound::kUnboundedPreceding:
        return ps;
      case FrameBound::kPreceding:
        return r - off + (end ? 1 : 0);
      case FrameBound::kCurrentRow:
        return f.rows ? r + (end ? 1 : 0) : (end ? ge : gs);
      case FrameBound::kFollowing:
        return r + off + (end ? 1 : 0);
      case FrameBound::kUnboundedFollowing:
        return pe;
    }
    return ps;
  };
  int64_t s = std::clamp(bound(f.start, f.start_offset, false), ps, pe);
  int64_t e = std::clamp(bound(f.end, f.end_offset, true), ps, pe);
  return {s, std::max(s, e)};
}

std::string Text(const Vector& v, uint32_t i) {
  return v.IsNull(i) ? "NULL" : std::to_string(v.data<int64_t>()[i]);
}
std::string TextInt(const Vector& v, uint32_t i) {
  return v.IsNull(i) ? "NULL" : std::to_string(v.data<int32_t>()[i]);
}

TEST(WindowFunction, FramesMatchTheDefinition) {
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937_64 rng(seed);
    const size_t n = seed == 4 ? 2100 : 300;  // 2100: two chunks
    std::vector<Row3> rows(n);
    auto maybe = [&](int domain) -> std::optional<int> {
      if (rng() % 8 == 0) return std::nullopt;
      return static_cast<int>(rng() % domain);
    };
    for (Row3& r : rows) r = {maybe(seed == 4 ? 16 : 4), maybe(6), maybe(100)};
    auto less = [](const std::optional<int>& a, const std::optional<int>& b) {
      if (a.has_value() != b.has_value()) return a.has_value();
      return a.has_value() && *a < *b;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const Row3& a, const Row3& b) {
      if (a.p != b.p) return less(a.p, b.p);
      return less(a.o, b.o);
    });
    std::vector<WindowFunction> fns;
    std::vector<WindowFrame> frames;
    frames.push_back(WindowFrame{});  // RANGE UNBOUNDED PRECEDING .. CURRENT ROW
    for (int k = 0; k < 6; ++k) {
      WindowFrame f;
      f.rows = true;
      const FrameBound kinds[] = {FrameBound::kUnboundedPreceding, FrameBound::kPreceding,
                                  FrameBound::kCurrentRow, FrameBound::kFollowing,
                                  FrameBound::kUnboundedFollowing};
      f.start = kinds[rng() % 4];
      f.end = kinds[1 + rng() % 4];
      f.start_offset = static_cast<int64_t>(rng() % 4);
      f.end_offset = static_cast<int64_t>(rng() % 4);
      frames.push_back(f);
    }
    for (const WindowFrame& f : frames) {
      for (AggKind a : {AggKind::kCount, AggKind::kSum, AggKind::kMin, AggKind::kMax}) {
        WindowFunction w;
        w.kind = WindowFuncKind::kAggregate;
        w.agg = a;
        w.args = {2};
        w.type = a == AggKind::kMin || a == AggKind::kMax ? Type::Integer() : Type::BigInt();
        w.frame = f;
        fns.push_back(w);
      }
      WindowFunction last;
      last.kind = WindowFuncKind::kLastValue;
      last.args = {2};
      last.type = Type::Integer();
      last.frame = f;
      fns.push_back(last);
    }
    std::vector<DataChunk> chunks = ToChunks(rows);
    std::vector<std::vector<Vector>> out = EvaluateWindow(chunks, {0}, {1}, fns);
    for (size_t fi = 0; fi < fns.size(); ++fi) {
      const WindowFunction& w = fns[fi];
      for (size_t r = 0; r < n; ++r) {
        auto [s, e] = RefFrame(rows, w.frame, static_cast<int64_t>(r));
        std::optional<int64_t> want;
        int64_t count = 0;
        for (int64_t k = s; k < e; ++k) {
          if (!rows[k].v) continue;
          int64_t x = *rows[k].v;
          ++count;
          if (w.kind == WindowFuncKind::kAggregate && w.agg == AggKind::kSum) {
            want = want.value_or(0) + x;
          } else if (w.agg == AggKind::kMin) {
            want = want ? std::min(*want, x) : x;
          } else if (w.agg == AggKind::kMax) {
            want = want ? std::max(*want, x) : x;
          }
        }
        if (w.kind == WindowFuncKind::kAggregate && w.agg == AggKind::kCount) want = count;
        if (w.kind == WindowFuncKind::kLastValue) {
          want = std::nullopt;
          if (e > s && rows[e - 1].v) want = *rows[e - 1].v;
        }
        const Vector& v = out[fi][r / kVectorSize];
        uint32_t i = static_cast<uint32_t>(r % kVectorSize);
        std::string got = w.type.id == TypeId::kInteger ? TextInt(v, i) : Text(v, i);
        ASSERT_EQ(got, want ? std::to_string(*want) : "NULL")
            << "seed " << seed << " function " << fi << " (" << WindowFuncName(w) << " "
            << FrameToString(w.frame) << ") row " << r;
      }
    }
  }
}

TEST(WindowFunction, RankingAndNtile) {
  // p: 1 1 1 1 2 NULL; o: 5 5 7 NULL 1 1
  std::vector<Row3> rows = {{1, 5, 1}, {1, 5, 2}, {1, 7, 3}, {1, {}, 4}, {2, 1, 5}, {{}, 1, 6}};
  std::vector<DataChunk> chunks = ToChunks(rows);
  std::vector<WindowFunction> fns(4);
  fns[0].kind = WindowFuncKind::kRowNumber;
  fns[1].kind = WindowFuncKind::kRank;
  fns[2].kind = WindowFuncKind::kDenseRank;
  fns[3].kind = WindowFuncKind::kNtile;
  fns[3].args = {2};  // ntile(v) per partition: v of its first row
  for (WindowFunction& f : fns) f.type = Type::BigInt();
  std::vector<std::vector<Vector>> out = EvaluateWindow(chunks, {0}, {1}, fns);
  std::string got;
  for (uint32_t r = 0; r < rows.size(); ++r) {
    for (const auto& f : out) got += Text(f[0], r) + " ";
    got += "; ";
  }
  EXPECT_EQ(got, "1 1 1 1 ; 2 1 1 1 ; 3 3 2 1 ; 4 4 3 1 ; 1 1 1 1 ; 1 1 1 1 ; ");
}

}  // namespace
}  // namespace forktail
