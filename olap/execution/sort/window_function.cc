#include "olap/execution/sort/window_function.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <type_traits>

#include "olap/common/kernel_util.h"
#include "storage/value/decimal.h"

namespace forktail {
namespace {

constexpr const char* kInvalidNtile = "22014";
constexpr const char* kInvalidNthValue = "22016";

// One input column as flat arrays over the whole row sequence (integers of
// any width and booleans widened to int64; wide DECIMALs in `w`).
struct Flat {
  Type type;
  PhysicalType p = PhysicalType::kInt64;
  std::vector<int64_t> i;
  std::vector<__int128> w;
  std::vector<double> d;
  std::vector<std::string_view> s;
  std::vector<uint8_t> null;

  bool Equal(uint64_t a, uint64_t b) const {
    if (null[a] || null[b]) return null[a] && null[b];
    switch (p) {
      case PhysicalType::kDouble:
        return d[a] == d[b] || (std::isnan(d[a]) && std::isnan(d[b]));
      case PhysicalType::kString:
        return s[a] == s[b];
      case PhysicalType::kInt128:
        return w[a] == w[b];
      default:
        return i[a] == i[b];
    }
  }
  // Three-way comparison of non-NULL values (NaN above every number).
  int Compare(uint64_t a, uint64_t b) const {
    switch (p) {
      case PhysicalType::kDouble: {
        bool na = std::isnan(d[a]), nb = std::isnan(d[b]);
        if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
        return d[a] < d[b] ? -1 : (d[a] > d[b] ? 1 : 0);
      }
      case PhysicalType::kString:
        return s[a].compare(s[b]) < 0 ? -1 : (s[a] == s[b] ? 0 : 1);
      case PhysicalType::kInt128:
        return w[a] < w[b] ? -1 : (w[a] > w[b] ? 1 : 0);
      default:
        return i[a] < i[b] ? -1 : (i[a] > i[b] ? 1 : 0);
    }
  }
};

Flat Flatten(const std::vector<DataChunk>& chunks, uint32_t col, uint64_t n) {
  Flat f;
  f.type = chunks.at(0).column(col).type();
  f.p = PhysicalTypeOf(f.type);
  f.null.reserve(n);
  for (const DataChunk& c : chunks) {
    const Vector& v = c.column(col);
    DispatchPhysical(f.p, [&]<typename T>() {
      const T* data = v.data<T>();
      ForEachRow(c.rows(), [&](uint32_t r) {
        bool is_null = v.IsNull(r);
        f.null.push_back(is_null ? 1 : 0);
        if constexpr (std::is_same_v<T, double>) {
          f.d.push_back(is_null ? 0.0 : data[r]);
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          f.s.push_back(is_null ? std::string_view() : data[r]);
        } else if constexpr (std::is_same_v<T, __int128>) {
          f.w.push_back(is_null ? 0 : data[r]);
        } else {
          f.i.push_back(is_null ? 0 : static_cast<int64_t>(data[r]));
        }
      });
    });
  }
  return f;
}

// A function's results before they become vectors: numbers, or (value
// functions, min/max) the row whose argument value is the result.
struct Result {
  enum Shape { kInt, kDouble, kCopy, kWide } shape = kInt;
  std::vector<int64_t> iv;  // kInt; kCopy: source row, -1 NULL, -2 - r: default of row r
  std::vector<double> dv;
  std::vector<__int128> wv;  // kWide: a wide DECIMAL sum or average
  std::vector<uint8_t> null;
};

// Aggregate state over a set of rows (added one at a time).
class Accumulator {
 public:
  Accumulator(AggKind kind, const Flat* x) : kind_(kind), x_(x) {}
  void Reset() {
    count_ = 0;
    isum_ = 0;
    dsum_ = 0;
    best_ = -1;
  }
  void Add(uint64_t r) {
    if (kind_ == AggKind::kCountStar) {
      ++count_;
      return;
    }
    if (x_->null[r]) return;
    ++count_;
    switch (kind_) {
      case AggKind::kSum:
      case AggKind::kAvg:
        if (x_->p == PhysicalType::kDouble) {
          dsum_ += x_->d[r];
        } else if (x_->p == PhysicalType::kInt128) {
          if (__builtin_add_overflow(isum_, x_->w[r], &isum_)) decimal::ThrowOverflow();
        } else {
          isum_ += x_->i[r];
        }
        break;
      case AggKind::kMin:
      case AggKind::kMax:
        if (best_ < 0) {
          best_ = static_cast<int64_t>(r);
        } else {
          int c = x_->Compare(r, static_cast<uint64_t>(best_));
          if (kind_ == AggKind::kMin ? c < 0 : c > 0) best_ = static_cast<int64_t>(r);
        }
        break;
      default:
        break;
    }
  }
  void Store(const Type& out_type, uint64_t row, Result* res) const {
    switch (kind_) {
      case AggKind::kCountStar:
      case AggKind::kCount:
        res->iv[row] = count_;
        return;
      case AggKind::kMin:
      case AggKind::kMax:
        res->iv[row] = best_;
        return;
      default:
        break;
    }
    if (count_ == 0) {
      res->null[row] = 1;
      return;
    }
    const bool dec = x_->type.id == TypeId::kDecimal;
    if (x_->p == PhysicalType::kDouble) {
      res->dv[row] = kind_ == AggKind::kSum ? dsum_ : dsum_ / static_cast<double>(count_);
    } else if (kind_ == AggKind::kSum) {
      if (dec) {
        res->wv[row] = decimal::CheckWide(isum_, out_type.precision);  // DECIMAL(38,s)
      } else {
        if (isum_ > INT64_MAX || isum_ < INT64_MIN) OutOfRange(Type::BigInt());
        res->iv[row] = static_cast<int64_t>(isum_);
      }
    } else if (dec) {
      __int128 avg = decimal::CheckWide(
          decimal::MulDivRound(isum_, decimal::Pow10Wide(out_type.scale - x_->type.scale), count_),
          out_type.precision);
      if (out_type.IsWideDecimal()) {
        res->wv[row] = avg;
      } else {
        res->iv[row] = static_cast<int64_t>(avg);
      }
    } else {
      res->dv[row] = static_cast<double>(static_cast<long double>(isum_) / count_);
    }
  }

  // Folds in another accumulator's rows (over the same argument).
  void Merge(const Accumulator& o) {
    count_ += o.count_;
    if (x_ == nullptr) return;
    if (x_->p == PhysicalType::kInt128) {
      if (__builtin_add_overflow(isum_, o.isum_, &isum_)) decimal::ThrowOverflow();
    } else {
      isum_ += o.isum_;
    }
    dsum_ += o.dsum_;
    if (o.best_ >= 0) {
      if (best_ < 0) {
        best_ = o.best_;
      } else if (kind_ == AggKind::kMin || kind_ == AggKind::kMax) {
        int c = x_->Compare(static_cast<uint64_t>(o.best_), static_cast<uint64_t>(best_));
        if (kind_ == AggKind::kMin ? c < 0 : c > 0) best_ = o.best_;
      }
    }
  }

 private:
  AggKind kind_;
  const Flat* x_;
  int64_t count_ = 0;
  __int128 isum_ = 0;
  double dsum_ = 0;
  int64_t best_ = -1;
};

// Row boundaries of the sorted input. Peer groups are numbered across the
// whole input (a partition start always starts a group).
struct Bounds {
  std::vector<uint64_t> partition_starts;  // plus n at the end
  std::vector<uint64_t> peer_start, peer_end;
  std::vector<uint64_t> group;         // row -> its peer group
  std::vector<uint64_t> group_starts;  // group -> its first row; plus n at the end
};

Bounds ComputeBounds(uint64_t n, const std::vector<Flat>& part, const std::vector<Flat>& order) {
  Bounds b;
  b.peer_start.resize(n);
  b.peer_end.resize(n);
  b.group.resize(n);
  auto same = [](const std::vector<Flat>& keys, uint64_t a, uint64_t c) {
    for (const Flat& k : keys) {
      if (!k.Equal(a, c)) return false;
    }
    return true;
  };
  uint64_t gs = 0;
  for (uint64_t r = 0; r < n; ++r) {
    bool new_part = r == 0 || !same(part, r - 1, r);
    if (new_part) b.partition_starts.push_back(r);
    if (new_part || !same(order, r - 1, r)) {
      for (uint64_t k = gs; k < r; ++k) b.peer_end[k] = r;
      gs = r;
      b.group_starts.push_back(r);
    }
    b.peer_start[r] = gs;
    b.group[r] = b.group_starts.size() - 1;
  }
  for (uint64_t k = gs; k < n; ++k) b.peer_end[k] = n;
  b.partition_starts.push_back(n);
  b.group_starts.push_back(n);
  return b;
}

// The rows a frame leaves to a function: up to three ranges in row order
// (EXCLUDE cuts the current row or its peers out of one frame range).
struct Segments {
  uint64_t begin[3], end[3];
  int count = 0;
  void Add(uint64_t s, uint64_t e) {
    if (s < e) {
      begin[count] = s;
      end[count++] = e;
    }
  }
};

// The frames of the rows of one partition [ps, pe).
class FrameCalc {
 public:
  FrameCalc(const WindowFrame& f, const Bounds& b, const Flat* key, uint64_t ps, uint64_t pe)
      : f_(f), b_(b), key_(key), ps_(ps), pe_(pe) {
    if (f.rows || f.groups) return;
    if (IsOffset(f.start)) Sweep(f.start == FrameBound::kFollowing ? 1 : -1, false, &start_);
    if (IsOffset(f.end)) Sweep(f.end == FrameBound::kFollowing ? 1 : -1, true, &end_);
  }

  // The frame [start, end) of row r, before any exclusion.
  std::pair<uint64_t, uint64_t> Frame(uint64_t r) const {
    uint64_t s = At(f_.start, f_.start_offset, false, r);
    uint64_t e = At(f_.end, f_.end_offset, true, r);
    return {s, std::max(s, e)};
  }

  Segments Rows(uint64_t r) const {
    auto [s, e] = Frame(r);
    Segments seg;
    if (f_.exclude == FrameExclude::kNoOthers) {
      seg.Add(s, e);
      return seg;
    }
    uint64_t xs = r, xe = r + 1;
    if (f_.exclude != FrameExclude::kCurrentRow) {
      xs = b_.peer_start[r];
      xe = b_.peer_end[r];
    }
    seg.Add(s, std::min(e, xs));
    if (f_.exclude == FrameExclude::kTies && r >= s && r < e) seg.Add(r, r + 1);
    seg.Add(std::max(s, xe), e);
    return seg;
  }

 private:
  static bool IsOffset(FrameBound k) {
    return k == FrameBound::kPreceding || k == FrameBound::kFollowing;
  }

  uint64_t At(FrameBound kind, int64_t off, bool is_end, uint64_t r) const {
    const int64_t ri = static_cast<int64_t>(r);
    int64_t v = 0;
    switch (kind) {
      case FrameBound::kUnboundedPreceding:
        return ps_;
      case FrameBound::kUnboundedFollowing:
        return pe_;
      case FrameBound::kCurrentRow:
        if (f_.rows) return r + (is_end ? 1 : 0);
        return is_end ? b_.peer_end[r] : b_.peer_start[r];
      case FrameBound::kPreceding:
      case FrameBound::kFollowing:
        break;
    }
    const int64_t sign = kind == FrameBound::kFollowing ? 1 : -1;
    if (f_.rows) {
      v = ri + sign * off + (is_end ? 1 : 0);
    } else if (f_.groups) {
      const int64_t first = static_cast<int64_t>(b_.group[ps_]);
      const int64_t last = static_cast<int64_t>(b_.group[pe_ - 1]);
      const int64_t g = static_cast<int64_t>(b_.group[r]) + sign * off;
      if (g < first) return ps_;
      if (g > last) return pe_;
      return b_.group_starts[static_cast<uint64_t>(g) + (is_end ? 1 : 0)];
    } else {
      return (is_end ? end_ : start_)[r - ps_];
    }
    return static_cast<uint64_t>(
        std::clamp<int64_t>(v, static_cast<int64_t>(ps_), static_cast<int64_t>(pe_)));
  }

  // Where row p's key lies, in sort order, from row r's key moved by the
  // offset toward FOLLOWING (sign 1) or PRECEDING (-1): <0 before, 0 at, >0
  // after. NaN sorts above every number.
  int Compare(uint64_t p, uint64_t r, int sign, bool is_end) const {
    const Flat& k = *key_;
    int c = 0;
    const bool down = f_.descending ? sign > 0 : sign < 0;  // target below the key
    if (k.p == PhysicalType::kDouble) {
      const double off = is_end ? f_.end_value : f_.start_value;
      const double t = down ? k.d[r] - off : k.d[r] + off, v = k.d[p];
      c = std::isnan(v) ? 1 : (v < t ? -1 : (v > t ? 1 : 0));
    } else {
      const __int128 off = is_end ? f_.end_offset : f_.start_offset;
      const __int128 base = k.p == PhysicalType::kInt128 ? k.w[r] : k.i[r];
      const __int128 v = k.p == PhysicalType::kInt128 ? k.w[p] : k.i[p];
      const __int128 t = down ? base - off : base + off;
      c = v < t ? -1 : (v > t ? 1 : 0);
    }
    return f_.descending ? -c : c;
  }

  // One RANGE offset bound for every row: a start is the first row at or
  // after the target, an end the first row after it. Targets only move
  // forward with r, so one pointer sweeps the partition's non-NULL rows.
  void Sweep(int sign, bool is_end, std::vector<uint64_t>* out) {
    const Flat& k = *key_;
    out->resize(pe_ - ps_);
    uint64_t ns = ps_;
    while (ns < pe_ && k.null[ns]) ++ns;
    uint64_t ne = ns;
    while (ne < pe_ && !k.null[ne]) ++ne;
    uint64_t p = ns;
    for (uint64_t r = ps_; r < pe_; ++r) {
      if (k.null[r] || (k.p == PhysicalType::kDouble && std::isnan(k.d[r]))) {
        (*out)[r - ps_] = is_end ? b_.peer_end[r] : b_.peer_start[r];
        continue;
      }
      while (p < ne && (is_end ? Compare(p, r, sign, true) <= 0 : Compare(p, r, sign, false) < 0))
        ++p;
      (*out)[r - ps_] = p;
    }
  }

  const WindowFrame& f_;
  const Bounds& b_;
  const Flat* key_;
  uint64_t ps_, pe_;
  std::vector<uint64_t> start_, end_;  // RANGE offset bounds, by r - ps
};

// Aggregate states of a partition's rows in a segment tree (leaves: one
// row each; a node: its two children merged), so that the frames of an
// EXCLUDE (up to three row ranges each) fold in O(log n) per row instead of
// rescanning the frame.
class RangeTree {
 public:
  RangeTree(AggKind kind, const Flat* x, uint64_t ps, uint64_t pe)
      : ps_(ps), size_(pe - ps), nodes_(2 * size_, Accumulator(kind, x)) {
    for (uint64_t i = 0; i < size_; ++i) nodes_[size_ + i].Add(ps + i);
    for (uint64_t i = size_; i-- > 1;) {
      nodes_[i].Merge(nodes_[2 * i]);
      nodes_[i].Merge(nodes_[2 * i + 1]);
    }
  }
  // Folds rows [s, e) into acc.
  void Fold(uint64_t s, uint64_t e, Accumulator* acc) const {
    for (uint64_t l = s - ps_ + size_, r = e - ps_ + size_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) acc->Merge(nodes_[l++]);
      if (r & 1) acc->Merge(nodes_[--r]);
    }
  }

 private:
  uint64_t ps_, size_;
  std::vector<Accumulator> nodes_;
};

void EvalAggregate(const WindowFunction& fn, const Flat* x, const Bounds& b, const FrameCalc& fc,
                   uint64_t ps, uint64_t pe, Result* res) {
  Accumulator acc(fn.agg, x);
  const WindowFrame& f = fn.frame;
  const bool whole = f.exclude == FrameExclude::kNoOthers;
  if (whole && f.start == FrameBound::kUnboundedPreceding) {  // start fixed, end grows
    uint64_t added = ps;
    for (uint64_t r = ps; r < pe; ++r) {
      uint64_t e = fc.Frame(r).second;
      for (; added < e; ++added) acc.Add(added);
      acc.Store(fn.type, r, res);
    }
  } else if (whole && f.end == FrameBound::kUnboundedFollowing) {  // end fixed, start shrinks
    uint64_t added = pe;
    for (uint64_t r = pe; r-- > ps;) {
      uint64_t s = fc.Frame(r).first;
      for (; added > s; --added) acc.Add(added - 1);
      acc.Store(fn.type, r, res);
    }
  } else if (!whole) {
    const RangeTree tree(fn.agg, x, ps, pe);
    for (uint64_t r = ps; r < pe; ++r) {
      Segments seg = fc.Rows(r);
      acc.Reset();
      for (int i = 0; i < seg.count; ++i) tree.Fold(seg.begin[i], seg.end[i], &acc);
      acc.Store(fn.type, r, res);
    }
  } else {
    (void)b;
    for (uint64_t r = ps; r < pe; ++r) {
      Segments seg = fc.Rows(r);
      acc.Reset();
      for (int i = 0; i < seg.count; ++i) {
        for (uint64_t k = seg.begin[i]; k < seg.end[i]; ++k) acc.Add(k);
      }
      acc.Store(fn.type, r, res);
    }
  }
}

// An integer argument of row r (lag offset, ntile / nth_value count);
// false if NULL.
bool IntArg(const std::vector<const Flat*>& args, size_t k, uint64_t r, int64_t* out) {
  const Flat& f = *args[k];
  if (f.null[r]) return false;
  *out = f.i[r];
  return true;
}

void EvalPartition(const WindowFunction& fn, const std::vector<const Flat*>& args, const Bounds& b,
                   const Flat* key, uint64_t ps, uint64_t pe, Result* res) {
  const uint64_t n = pe - ps;
  switch (fn.kind) {
    case WindowFuncKind::kRowNumber:
      for (uint64_t r = ps; r < pe; ++r) res->iv[r] = static_cast<int64_t>(r - ps + 1);
      return;
    case WindowFuncKind::kRank:
      for (uint64_t r = ps; r < pe; ++r)
        res->iv[r] = static_cast<int64_t>(b.peer_start[r] - ps + 1);
      return;
    case WindowFuncKind::kDenseRank: {
      int64_t rank = 0;
      for (uint64_t r = ps; r < pe; ++r) {
        if (b.peer_start[r] == r) ++rank;
        res->iv[r] = rank;
      }
      return;
    }
    case WindowFuncKind::kPercentRank:
      for (uint64_t r = ps; r < pe; ++r) {
        res->dv[r] =
            n <= 1 ? 0.0 : static_cast<double>(b.peer_start[r] - ps) / static_cast<double>(n - 1);
      }
      return;
    case WindowFuncKind::kCumeDist:
      for (uint64_t r = ps; r < pe; ++r) {
        res->dv[r] = static_cast<double>(b.peer_end[r] - ps) / static_cast<double>(n);
      }
      return;
    case WindowFuncKind::kNtile: {
      int64_t k = 0;
      if (!IntArg(args, 0, ps, &k)) {
        for (uint64_t r = ps; r < pe; ++r) res->null[r] = 1;
        return;
      }
      if (k <= 0) throw DbError(kInvalidNtile, "argument of ntile must be greater than zero");
      // PostgreSQL: n / k rows per bucket, the first n % k buckets one more.
      const uint64_t buckets = static_cast<uint64_t>(k);
      const uint64_t per = n / buckets, extra = n % buckets;
      uint64_t bucket = 1, left = per + (extra > 0 ? 1 : 0);
      if (left == 0) left = 1;
      for (uint64_t r = ps; r < pe; ++r) {
        if (left == 0) {
          ++bucket;
          left = per + (bucket <= extra ? 1 : 0);
        }
        res->iv[r] = static_cast<int64_t>(bucket);
        --left;
      }
      return;
    }
    case WindowFuncKind::kLag:
    case WindowFuncKind::kLead:
      for (uint64_t r = ps; r < pe; ++r) {
        int64_t off = 1;
        if (args.size() > 1 && !IntArg(args, 1, r, &off)) {
          res->iv[r] = -1;
          continue;
        }
        int64_t target = static_cast<int64_t>(r) + (fn.kind == WindowFuncKind::kLag ? -off : off);
        if (target >= static_cast<int64_t>(ps) && target < static_cast<int64_t>(pe)) {
          res->iv[r] = target;
        } else {
          res->iv[r] = args.size() > 2 ? -2 - static_cast<int64_t>(r) : -1;
        }
      }
      return;
    case WindowFuncKind::kFirstValue:
    case WindowFuncKind::kLastValue:
    case WindowFuncKind::kNthValue: {
      const FrameCalc fc(fn.frame, b, key, ps, pe);
      for (uint64_t r = ps; r < pe; ++r) {
        const Segments seg = fc.Rows(r);
        int64_t nth = 1;
        if (fn.kind == WindowFuncKind::kNthValue) {
          if (!IntArg(args, 1, r, &nth)) {
            res->iv[r] = -1;
            continue;
          }
          if (nth <= 0) {
            throw DbError(kInvalidNthValue, "argument of nth_value must be greater than zero");
          }
        }
        res->iv[r] = -1;
        if (fn.kind == WindowFuncKind::kLastValue) {
          if (seg.count > 0) res->iv[r] = static_cast<int64_t>(seg.end[seg.count - 1] - 1);
          continue;
        }
        uint64_t left = static_cast<uint64_t>(nth);
        for (int i = 0; i < seg.count; ++i) {
          if (left <= seg.end[i] - seg.begin[i]) {
            res->iv[r] = static_cast<int64_t>(seg.begin[i] + left - 1);
            break;
          }
          left -= seg.end[i] - seg.begin[i];
        }
      }
      return;
    }
    case WindowFuncKind::kAggregate:
      EvalAggregate(fn, args.empty() ? nullptr : args[0], b, FrameCalc(fn.frame, b, key, ps, pe),
                    ps, pe, res);
      return;
  }
}

Result::Shape ShapeOf(const WindowFunction& fn) {
  if (fn.kind == WindowFuncKind::kAggregate && fn.agg != AggKind::kMin && fn.agg != AggKind::kMax) {
    PhysicalType p = PhysicalTypeOf(fn.type);
    return p == PhysicalType::kDouble   ? Result::kDouble
           : p == PhysicalType::kInt128 ? Result::kWide
                                        : Result::kInt;
  }
  switch (fn.kind) {
    case WindowFuncKind::kPercentRank:
    case WindowFuncKind::kCumeDist:
      return Result::kDouble;
    case WindowFuncKind::kRowNumber:
    case WindowFuncKind::kRank:
    case WindowFuncKind::kDenseRank:
    case WindowFuncKind::kNtile:
      return Result::kInt;
    default:
      return Result::kCopy;
  }
}

// Writes row `r`'s result into v[pos].
template <typename T>
void Put(const Result& res, const std::vector<const Flat*>& args, uint64_t r, Vector* v,
         uint32_t pos) {
  T* out = v->mutable_data<T>();
  if (res.shape != Result::kCopy) {
    if (res.null[r]) {
      v->SetNull(pos, true);
    } else if constexpr (std::is_same_v<T, double>) {
      out[pos] = res.dv[r];
    } else if constexpr (std::is_same_v<T, __int128>) {
      out[pos] = res.wv[r];
    } else if constexpr (std::is_integral_v<T>) {
      out[pos] = static_cast<T>(res.iv[r]);
    }
    return;
  }
  int64_t src = res.iv[r];
  const Flat* f = args.empty() ? nullptr : args[0];
  if (src <= -2) {
    f = args[2];
    src = -2 - src;
  }
  if (src < 0 || f->null[static_cast<uint64_t>(src)]) {
    v->SetNull(pos, true);
    return;
  }
  const uint64_t s = static_cast<uint64_t>(src);
  if constexpr (std::is_same_v<T, double>) {
    out[pos] = f->d[s];
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    out[pos] = f->s[s];
  } else if constexpr (std::is_same_v<T, __int128>) {
    out[pos] = f->w[s];
  } else {
    out[pos] = static_cast<T>(f->i[s]);
  }
}

}  // namespace

std::vector<std::vector<Vector>> EvaluateWindow(const std::vector<DataChunk>& chunks,
                                                const std::vector<uint32_t>& partition,
                                                const std::vector<uint32_t>& order,
                                                const std::vector<WindowFunction>& functions) {
  uint64_t n = 0;
  for (const DataChunk& c : chunks) n += c.count();
  std::vector<std::vector<Vector>> out(functions.size());
  if (n == 0) return out;
  std::vector<Flat> part, ord;
  for (uint32_t c : partition) part.push_back(Flatten(chunks, c, n));
  for (uint32_t c : order) ord.push_back(Flatten(chunks, c, n));
  const Bounds b = ComputeBounds(n, part, ord);
  part.clear();
  ord.resize(std::min<size_t>(ord.size(), 1));  // RANGE offsets compare the first key
  const Flat* key = ord.empty() ? nullptr : &ord[0];

  for (size_t fi = 0; fi < functions.size(); ++fi) {
    const WindowFunction& fn = functions[fi];
    std::vector<Flat> arg_cols;
    arg_cols.reserve(fn.args.size());
    for (uint32_t c : fn.args) arg_cols.push_back(Flatten(chunks, c, n));
    std::vector<const Flat*> args;
    for (const Flat& f : arg_cols) args.push_back(&f);
    Result res;
    res.shape = ShapeOf(fn);
    res.iv.assign(n, 0);
    if (res.shape == Result::kDouble) res.dv.assign(n, 0.0);
    if (res.shape == Result::kWide) res.wv.assign(n, 0);
    res.null.assign(n, 0);
    for (size_t p = 0; p + 1 < b.partition_starts.size(); ++p) {
      EvalPartition(fn, args, b, key, b.partition_starts[p], b.partition_starts[p + 1], &res);
    }
    uint64_t r = 0;
    for (const DataChunk& c : chunks) {
      Vector v(fn.type);
      DispatchPhysical(v.physical(), [&]<typename T>() {
        ForEachRow(c.rows(), [&](uint32_t pos) { Put<T>(res, args, r++, &v, pos); });
      });
      // String results are views into the input chunks' memory.
      if (v.physical() == PhysicalType::kString && !fn.args.empty()) {
        v.ShareAuxiliary(c.column(fn.args[0]));
        if (fn.args.size() > 2) v.ShareAuxiliary(c.column(fn.args[2]));
      }
      out[fi].push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace forktail
