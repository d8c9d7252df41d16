// EvaluateWindow (olap/execution/sort/window_function.h) against a row-at-a-time reference:
// random partition / order keys (ties and NULLs), random ROWS, RANGE (with
// offsets) and GROUPS frames with random EXCLUDE clauses, and the default
// RANGE frame, for the frame-aware functions (count, sum, min, max,
// first_value, last_value, nth_value) and the ranking ones; seed 3 orders
// DESC. Fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "olap/execution/sort/window_function.h"

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
    DataChunk c({Type::Integer(), Type::Integer(), Type::Integer(), Type::Integer()});
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
      c.column(3).mutable_data<int32_t>()[i] = 2;  // nth_value's n
    }
    c.set_size(n);
    chunks.push_back(std::move(c));
  }
  return chunks;
}

// Whether row k is in row r's frame, by the definition (each bound a
// condition on k; RANGE offsets compare keys, GROUPS count peer groups).
// `group`: each row's peer group number (counted from the input's start).
bool RefInFrame(const std::vector<Row3>& rows, const std::vector<int64_t>& group,
                const WindowFrame& f, int64_t r, int64_t k) {
  if (rows[k].p != rows[r].p) return false;
  const bool peer = rows[k].o == rows[r].o;
  auto holds = [&](FrameBound kind, int64_t off, bool end) {
    switch (kind) {
      case FrameBound::kUnboundedPreceding:
      case FrameBound::kUnboundedFollowing:
        return true;
      case FrameBound::kCurrentRow:
        if (f.rows) return end ? k <= r : k >= r;
        return end ? (k <= r || peer) : (k >= r || peer);
      default:
        break;
    }
    const int64_t sign = kind == FrameBound::kFollowing ? 1 : -1;
    if (f.rows) return end ? k <= r + sign * off : k >= r + sign * off;
    if (f.groups) {
      int64_t gk = group[k], gr = group[r];
      return end ? gk <= gr + sign * off : gk >= gr + sign * off;
    }
    if (!rows[r].o) return end ? (k <= r || peer) : (k >= r || peer);
    if (!rows[k].o) return end ? k < r : k > r;  // NULLs lie beyond any offset
    if (f.descending) {                          // PRECEDING rows have greater keys
      int64_t t = *rows[r].o - sign * off;
      return end ? *rows[k].o >= t : *rows[k].o <= t;
    }
    int64_t t = *rows[r].o + sign * off;
    return end ? *rows[k].o <= t : *rows[k].o >= t;
  };
  if (!holds(f.start, f.start_offset, false) || !holds(f.end, f.end_offset, true)) return false;
  switch (f.exclude) {
    case FrameExclude::kNoOthers:
      return true;
    case FrameExclude::kCurrentRow:
      return k != r;
    case FrameExclude::kGroup:
      return !peer;
    case FrameExclude::kTies:
      return !peer || k == r;
  }
  return true;
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
    const bool desc = seed == 3;              // order key DESC NULLS FIRST (RANGE offsets flip)
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
      if (desc) return a.o != b.o && (!a.o || (b.o && *a.o > *b.o));  // DESC NULLS FIRST
      return less(a.o, b.o);
    });
    std::vector<WindowFunction> fns;
    std::vector<WindowFrame> frames;
    frames.push_back(WindowFrame{});  // RANGE UNBOUNDED PRECEDING .. CURRENT ROW
    for (int k = 0; k < 18; ++k) {
      WindowFrame f;
      f.rows = k % 3 == 0;
      f.groups = k % 3 == 1;
      f.exclude = static_cast<FrameExclude>(rng() % 4);
      f.descending = desc;
      const FrameBound kinds[] = {FrameBound::kUnboundedPreceding, FrameBound::kPreceding,
                                  FrameBound::kCurrentRow, FrameBound::kFollowing,
                                  FrameBound::kUnboundedFollowing};
      f.start = kinds[rng() % 4];
      f.end = kinds[1 + rng() % 4];
      f.start_offset = static_cast<int64_t>(rng() % 4);
      f.end_offset = static_cast<int64_t>(rng() % 4);
      if (f.start == FrameBound::kCurrentRow && f.end == FrameBound::kPreceding) continue;
      if (f.start == FrameBound::kFollowing &&
          (f.end == FrameBound::kPreceding || f.end == FrameBound::kCurrentRow)) {
        continue;
      }
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
      for (WindowFuncKind kind :
           {WindowFuncKind::kLastValue, WindowFuncKind::kFirstValue, WindowFuncKind::kNthValue}) {
        WindowFunction value;
        value.kind = kind;
        value.args = {2};
        if (kind == WindowFuncKind::kNthValue) value.args.push_back(3);  // column 3: 2
        value.type = Type::Integer();
        value.frame = f;
        fns.push_back(value);
      }
    }
    std::vector<DataChunk> chunks = ToChunks(rows);
    std::vector<std::vector<Vector>> out = EvaluateWindow(chunks, {0}, {1}, fns);
    std::vector<int64_t> group(n, 0), part_start(n, 0), part_end(n, 0);
    for (size_t r = 1; r < n; ++r) {
      bool same_part = rows[r].p == rows[r - 1].p;
      group[r] = group[r - 1] + (!same_part || rows[r].o != rows[r - 1].o ? 1 : 0);
      part_start[r] = same_part ? part_start[r - 1] : static_cast<int64_t>(r);
    }
    for (size_t r = n; r-- > 0;) {
      part_end[r] =
          r + 1 < n && rows[r + 1].p == rows[r].p ? part_end[r + 1] : static_cast<int64_t>(r + 1);
    }
    std::vector<std::vector<int64_t>> ref_frames(n);  // of the current frame, by row
    for (size_t fi = 0; fi < fns.size(); ++fi) {
      const WindowFunction& w = fns[fi];
      const bool new_frame = fi == 0 || !(fns[fi - 1].frame == w.frame);
      for (size_t r = 0; r < n; ++r) {
        std::vector<int64_t>& frame = ref_frames[r];
        if (new_frame) {
          frame.clear();
          for (int64_t k = part_start[r]; k < part_end[r]; ++k) {
            if (RefInFrame(rows, group, w.frame, static_cast<int64_t>(r), k)) frame.push_back(k);
          }
        }
        // The expected value as text ("NULL" when none). Kept as a flag and a
        // value, not a std::optional: GCC 12 -O3 reports the optional's value
        // maybe-uninitialized in std::to_string (a false positive, -Werror).
        bool has_want = false;
        int64_t want = 0;
        auto set_want = [&](int64_t x) {
          has_want = true;
          want = x;
        };
        int64_t count = 0;
        for (int64_t k : frame) {
          if (!rows[k].v) continue;
          int64_t x = *rows[k].v;
          ++count;
          if (w.kind == WindowFuncKind::kAggregate && w.agg == AggKind::kSum) {
            set_want(has_want ? want + x : x);
          } else if (w.agg == AggKind::kMin) {
            set_want(has_want ? std::min(want, x) : x);
          } else if (w.agg == AggKind::kMax) {
            set_want(has_want ? std::max(want, x) : x);
          }
        }
        if (w.kind == WindowFuncKind::kAggregate && w.agg == AggKind::kCount) set_want(count);
        if (w.kind != WindowFuncKind::kAggregate) {
          has_want = false;
          size_t at = w.kind == WindowFuncKind::kLastValue    ? frame.size() - 1
                      : w.kind == WindowFuncKind::kFirstValue ? 0
                                                              : 1;
          if (at < frame.size() && rows[frame[at]].v) set_want(*rows[frame[at]].v);
        }
        const Vector& v = out[fi][r / kVectorSize];
        uint32_t i = static_cast<uint32_t>(r % kVectorSize);
        std::string got = w.type.id == TypeId::kInteger ? TextInt(v, i) : Text(v, i);
        ASSERT_EQ(got, has_want ? std::to_string(want) : "NULL")
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
