#include "olap/execution/aggregate/group_table.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "olap/common/kernel_util.h"
#include "storage/value/decimal.h"

namespace forktail {
namespace {

bool IsDistinctSet(AggKind k) {
  return k == AggKind::kCountDistinct || k == AggKind::kSumDistinct || k == AggKind::kAvgDistinct;
}

bool IsSumLike(AggKind k) {
  return k == AggKind::kSum || k == AggKind::kAvg || k == AggKind::kSumDistinct ||
         k == AggKind::kAvgDistinct;
}

bool IsIntSum(const AggregateSpec& a) {
  return IsSumLike(a.kind) && a.input_type.id != TypeId::kDouble;
}

uint32_t StateWords(const AggregateSpec& a) {
  switch (a.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
    case AggKind::kCountDistinct:
    case AggKind::kSumDistinct:
    case AggKind::kAvgDistinct:
    case AggKind::kStringAgg:
    case AggKind::kArrayAgg:
      return 1;
    case AggKind::kSum:
    case AggKind::kAvg:
      return IsIntSum(a) ? 3 : 2;
    case AggKind::kMin:
    case AggKind::kMax:  // [value][has] / [lo][hi][has] / [ptr][len][has]
    case AggKind::kAnyValue:
      return a.input_type.StoredAsString() || a.input_type.IsWideDecimal() ? 3 : 2;
  }
  abort();
}

// Distinct sets of wide DECIMALs keep the 16 bytes of each value as a string.
bool DistinctAsBytes(const Type& t) { return t.StoredAsString() || t.IsWideDecimal(); }

std::string WideBytes(__int128 v) { return std::string(reinterpret_cast<const char*>(&v), 16); }
__int128 FromWideBytes(const std::string& b) {
  __int128 v;
  memcpy(&v, b.data(), 16);
  return v;
}

__int128 CheckedAdd(__int128 a, __int128 b) {
  __int128 r;
  if (__builtin_add_overflow(a, b, &r)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "numeric field overflow");
  }
  return r;
}

__int128 GetI128(const uint64_t* s) {
  return static_cast<__int128>((static_cast<unsigned __int128>(s[1]) << 64) | s[0]);
}
void SetI128(uint64_t* s, __int128 v) {
  s[0] = static_cast<uint64_t>(v);
  s[1] = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
}

// AVG(DECIMAL(p,s)): at least 6 fractional digits where the integer part
// leaves room, in 18 digits for a narrow input (as before wide decimals) and
// 38 for a wide one.
int AvgPrecision(const Type& t) {
  return t.IsWideDecimal() ? kMaxDecimalPrecision : kMaxNarrowDecimalPrecision;
}
int AvgScale(const Type& t) {
  return std::min(AvgPrecision(t) - (t.precision - t.scale), std::max<int>(t.scale, 6));
}

// A SUM/AVG state ([sum lo][sum hi][count] or [sum][count]) over the
// distinct set's values (int64 values, or double bits for DOUBLE).
void SumDistinct(const AggregateSpec& a, const std::unordered_set<uint64_t>& set, uint64_t* s) {
  if (IsIntSum(a)) {
    __int128 sum = 0;
    for (uint64_t x : set) sum += static_cast<int64_t>(x);
    SetI128(s, sum);
    s[2] = set.size();
    return;
  }
  // In value order: the result does not depend on the set's history.
  std::vector<double> xs;
  xs.reserve(set.size());
  for (uint64_t bits : set) {
    double x;
    memcpy(&x, &bits, 8);
    xs.push_back(x);
  }
  std::sort(xs.begin(), xs.end());
  double sum = 0;
  for (double x : xs) sum += x;
  memcpy(s, &sum, 8);
  s[1] = set.size();
}

// Typed MIN/MAX helpers: the value word holds int64, double bits or a ptr.
// order: -1 MIN, 1 MAX, 0 ANY_VALUE (the first value stays).
template <typename T>
bool Better(int order, T a, T b) {
  return order < 0 ? a < b : order > 0 && a > b;
}

int MinMaxOrder(AggKind k) { return k == AggKind::kMin ? -1 : k == AggKind::kMax ? 1 : 0; }

}  // namespace

Type AggregateResultType(const AggregateSpec& a) {
  switch (a.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
    case AggKind::kCountDistinct:
      return Type::BigInt();
    case AggKind::kSum:
    case AggKind::kSumDistinct:
      if (a.input_type.id == TypeId::kDouble) return Type::Double();
      // DuckDB's DECIMAL(38,s): a sum of many 18-digit values needs more.
      if (a.input_type.id == TypeId::kDecimal) {
        return Type::Decimal(kMaxDecimalPrecision, a.input_type.scale);
      }
      return Type::BigInt();
    case AggKind::kAvg:
    case AggKind::kAvgDistinct:
      if (a.input_type.id == TypeId::kDecimal) {
        return Type::Decimal(AvgPrecision(a.input_type), AvgScale(a.input_type));
      }
      return Type::Double();
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kAnyValue:
      return a.input_type;
    case AggKind::kStringAgg:
    case AggKind::kArrayAgg:  // the binder tags its column with the element type
      return Type::Text();
  }
  abort();
}

GroupTable::GroupTable(const KeyEncoder* keys, const std::vector<AggregateSpec>* aggs)
    : enc_(keys), aggs_(aggs) {
  for (const auto& a : *aggs_) {
    offsets_.push_back(state_words_);
    state_words_ += StateWords(a);
  }
}

size_t GroupTable::bytes() const {
  // An unordered_set node as malloc gives it (libstdc++: a next pointer and
  // the value, plus the cached hash for strings; malloc's 16-byte granules
  // with its 8-byte header), plus the bucket array: load factor 1 and
  // doubling leave up to 2 bucket pointers per element.
  constexpr size_t kIntegerNode = 32 + 16;
  constexpr size_t kStringNode = 64 + 16;
  size_t b = buckets_.capacity() * sizeof(uint32_t) +
             (keys_.capacity() + hashes_.capacity() + states_.capacity()) * sizeof(uint64_t) +
             (arena_ != nullptr ? arena_->bytes() : 0);
  b +=
      distinct_.capacity() * sizeof(distinct_[0]) + distinct_s_.capacity() * sizeof(distinct_s_[0]);
  b += distinct_elements_ * kIntegerNode;
  b += distinct_strings_ * kStringNode;
  b += distinct_string_heap_;
  for (const auto& l : lists_) {
    b += l.capacity() * sizeof(l[0]);
    for (const auto& x : l) b += x ? x->capacity() : 0;
  }
  return b;
}

void GroupTable::Clear() {
  buckets_.clear();
  mask_ = 0;
  keys_.clear();
  hashes_.clear();
  states_.clear();
  arena_.reset();
  distinct_.clear();
  distinct_s_.clear();
  distinct_elements_ = 0;
  distinct_strings_ = 0;
  distinct_string_heap_ = 0;
  lists_.clear();
}

void GroupTable::AddDistinct(uint64_t set, uint64_t value) {
  distinct_elements_ += distinct_[set].insert(value).second ? 1 : 0;
}

void GroupTable::AddDistinct(uint64_t set, std::string value) {
  // Strings longer than the inline buffer (15 bytes in libstdc++) own a heap copy.
  const size_t heap = value.size() > 15 ? value.size() + 1 : 0;
  if (distinct_s_[set].insert(std::move(value)).second) {
    ++distinct_strings_;
    distinct_string_heap_ += heap;
  }
}

void GroupTable::Grow() {
  size_t cap = std::max<size_t>(16, buckets_.size() * 2);
  buckets_.assign(cap, kNoGroup);
  mask_ = cap - 1;
  for (uint32_t g = 0; g < hashes_.size(); ++g) {
    uint64_t b = hashes_[g] & mask_;
    while (buckets_[b] != kNoGroup) b = (b + 1) & mask_;
    buckets_[b] = g;
  }
}

uint32_t GroupTable::Insert(const uint64_t* key, uint64_t hash) {
  uint32_t g = size();
  const uint32_t w = enc_->words();
  keys_.insert(keys_.end(), key, key + w);
  enc_->Own(&keys_[size_t{g} * w], Arena());
  hashes_.push_back(hash);
  states_.resize(states_.size() + state_words_, 0);
  for (size_t a = 0; a < aggs_->size(); ++a) {
    AggKind kind = (*aggs_)[a].kind;
    if (kind == AggKind::kStringAgg || kind == AggKind::kArrayAgg) {
      State(g)[offsets_[a]] = lists_.size();
      lists_.emplace_back();
      continue;
    }
    if (!IsDistinctSet(kind)) continue;
    uint64_t* s = State(g) + offsets_[a];
    if (DistinctAsBytes((*aggs_)[a].input_type)) {
      s[0] = distinct_s_.size();
      distinct_s_.emplace_back();
    } else {
      s[0] = distinct_.size();
      distinct_.emplace_back();
    }
  }
  return g;
}

uint32_t GroupTable::FindOrInsert(const uint64_t* keys, const uint64_t* hashes, uint32_t n,
                                  uint32_t* groups, uint32_t max_groups) {
  const uint32_t w = enc_->words();
  uint32_t misses = 0;
  for (uint32_t k = 0; k < n; ++k) {
    if ((hashes_.size() + 1) * 2 > buckets_.size()) Grow();
    const uint64_t* key = keys + size_t{k} * w;
    uint64_t h = hashes[k];
    uint64_t b = h & mask_;
    uint32_t g;
    while ((g = buckets_[b]) != kNoGroup) {
      if (hashes_[g] == h && enc_->Equal(&keys_[size_t{g} * w], key)) break;
      b = (b + 1) & mask_;
    }
    if (g == kNoGroup) {
      if (size() >= max_groups) {
        groups[k] = kNoGroup;
        ++misses;
        continue;
      }
      g = Insert(key, h);
      buckets_[b] = g;
    }
    groups[k] = g;
  }
  return misses;
}

void GroupTable::EnsureEmptyGroup() {
  if (size() > 0) return;
  std::vector<uint64_t> key(enc_->words(), 0);
  uint32_t g;
  uint64_t h = 0;
  FindOrInsert(key.data(), &h, 1, &g);
}

void GroupTable::SortByGroup(Rows rows, const uint32_t* groups) {
  const uint32_t n_groups = size();
  group_start_.assign(n_groups + 2, 0);
  for (uint32_t k = 0; k < rows.count; ++k) {
    if (groups[k] != kNoGroup) ++group_start_[groups[k] + 2];
  }
  for (uint32_t g = 0; g < n_groups; ++g) group_start_[g + 2] += group_start_[g + 1];
  // group_start_[g + 1] is now where group g's rows go; filling moves it to
  // the group's end, which is group g + 1's start.
  by_group_.resize(rows.count);
  for (uint32_t k = 0; k < rows.count; ++k) {
    if (groups[k] != kNoGroup) by_group_[group_start_[groups[k] + 1]++] = rows[k];
  }
}

namespace {

// COUNT(x), or integer / DECIMAL SUM and AVG, of rows row(i) for i in [b, e)
// into state s, the sum in a register: no state load and store per row.
template <typename T, typename RowAt>
void SumInRegister(AggKind kind, const T* d, const uint64_t* nulls, uint32_t b, uint32_t e,
                   RowAt row, uint64_t* s) {
  __int128 sum = 0;
  uint64_t count = 0;
  if (nulls == nullptr) {
    for (uint32_t i = b; i < e; ++i) sum += static_cast<int64_t>(d[row(i)]);
    count = e - b;
  } else {
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t r = row(i);
      if (NullAt(nulls, r)) continue;
      sum += static_cast<int64_t>(d[r]);
      ++count;
    }
  }
  if (kind == AggKind::kCount) {
    s[0] += count;
  } else {
    SetI128(s, GetI128(s) + sum);
    s[2] += count;
  }
}

// Whether SumInRegister applies: COUNT(*) (v null), COUNT, and SUM / AVG of
// narrow integers (wide DECIMALs check every addition, DOUBLE sums keep row
// order: the generic path).
bool SumsInRegister(const AggregateSpec& spec, const Vector* v) {
  if (spec.kind == AggKind::kCountStar) return true;
  if (spec.kind != AggKind::kCount && spec.kind != AggKind::kSum && spec.kind != AggKind::kAvg) {
    return false;
  }
  bool integral = false;
  DispatchPhysical(v->physical(), [&]<typename T>() {
    integral = std::is_integral_v<T> && !std::is_same_v<T, __int128>;
  });
  return integral;
}

}  // namespace

bool GroupTable::UpdateByGroup(const AggregateSpec& spec, const Vector* v, uint32_t off) {
  if (!SumsInRegister(spec, v)) return false;
  const uint32_t n_groups = size();
  const uint32_t sw = state_words_;
  if (spec.kind == AggKind::kCountStar) {
    for (uint32_t g = 0; g < n_groups; ++g) {
      states_[size_t{g} * sw + off] += group_start_[g + 1] - group_start_[g];
    }
    return true;
  }
  DispatchPhysical(v->physical(), [&]<typename T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, __int128>) {
      for (uint32_t g = 0; g < n_groups; ++g) {
        const uint32_t b = group_start_[g], e = group_start_[g + 1];
        if (b == e) continue;
        SumInRegister(
            spec.kind, v->data<T>(), v->nulls(), b, e, [this](uint32_t i) { return by_group_[i]; },
            &states_[size_t{g} * sw + off]);
      }
    }
  });
  return true;
}

void GroupTable::UpdateGlobal(const DataChunk& chunk, const std::vector<uint32_t>& inputs,
                              Rows rows) {
  assert(enc_->types().empty());
  EnsureEmptyGroup();
  const uint32_t* zeros = nullptr;  // every row's group, for the generic path
  for (size_t a = 0; a < aggs_->size(); ++a) {
    const AggregateSpec& spec = (*aggs_)[a];
    const Vector* v = spec.kind == AggKind::kCountStar ? nullptr : &chunk.column(inputs[a]);
    uint64_t* s = &states_[offsets_[a]];
    if (SumsInRegister(spec, v)) {
      if (spec.kind == AggKind::kCountStar) {
        s[0] += rows.count;
        continue;
      }
      DispatchPhysical(v->physical(), [&]<typename T>() {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, __int128>) {
          if (rows.sel == nullptr) {
            SumInRegister(
                spec.kind, v->data<T>(), v->nulls(), 0, rows.count, [](uint32_t i) { return i; },
                s);
          } else {
            SumInRegister(
                spec.kind, v->data<T>(), v->nulls(), 0, rows.count,
                [&rows](uint32_t i) { return rows.sel[i]; }, s);
          }
        }
      });
      continue;
    }
    if (zeros == nullptr) {
      zeros_.assign(rows.count, 0);
      zeros = zeros_.data();
    }
    UpdateAggregate(a, chunk, inputs, rows, zeros);
  }
}

void GroupTable::Update(const DataChunk& chunk, const std::vector<uint32_t>& inputs, Rows rows,
                        const uint32_t* groups) {
  // Few groups (TPC-H Q01: 4 groups, 8 aggregates): sort the chunk's rows by
  // group once, then each aggregate sums a group's rows in registers.
  const bool by_group = size() <= kFewGroups && rows.count >= kFewGroupsMinRows;
  if (by_group) SortByGroup(rows, groups);
  for (size_t a = 0; a < aggs_->size(); ++a) {
    const AggregateSpec& spec = (*aggs_)[a];
    if (by_group &&
        UpdateByGroup(spec, spec.kind == AggKind::kCountStar ? nullptr : &chunk.column(inputs[a]),
                      offsets_[a])) {
      continue;
    }
    UpdateAggregate(a, chunk, inputs, rows, groups);
  }
}

void GroupTable::UpdateAggregate(size_t a, const DataChunk& chunk,
                                 const std::vector<uint32_t>& inputs, Rows rows,
                                 const uint32_t* groups) {
  uint64_t* st = states_.data();
  const uint32_t sw = state_words_;
  const AggregateSpec& spec = (*aggs_)[a];
  const uint32_t off = offsets_[a];
  if (spec.kind == AggKind::kCountStar) {
    for (uint32_t k = 0; k < rows.count; ++k) {
      if (groups[k] != kNoGroup) ++st[size_t{groups[k]} * sw + off];
    }
    return;
  }
  const Vector& v = chunk.column(inputs[a]);
  const uint64_t* nulls = v.nulls();
  if (spec.kind == AggKind::kStringAgg || spec.kind == AggKind::kArrayAgg) {
    const std::string_view* d = v.data<std::string_view>();
    for (uint32_t k = 0; k < rows.count; ++k) {
      uint32_t r = rows[k];
      if (groups[k] == kNoGroup) continue;
      ListAggValues& l = lists_[st[size_t{groups[k]} * sw + off]];
      if (NullAt(nulls, r)) {
        l.emplace_back(std::nullopt);
      } else {
        l.emplace_back(std::string(d[r]));
      }
    }
    return;
  }
  DispatchPhysical(v.physical(), [&]<typename T>() {
    const T* d = v.data<T>();
    auto each = [&](auto f) {
      for (uint32_t k = 0; k < rows.count; ++k) {
        uint32_t r = rows[k];
        if (groups[k] == kNoGroup || NullAt(nulls, r)) continue;
        f(st + size_t{groups[k]} * sw + off, d[r]);
      }
    };
    switch (spec.kind) {
      case AggKind::kCount:
        each([](uint64_t* s, T) { ++s[0]; });
        break;
      case AggKind::kSum:
      case AggKind::kAvg:
        if constexpr (std::is_same_v<T, double>) {
          each([](uint64_t* s, double x) {
            double sum;
            memcpy(&sum, s, 8);
            sum += x;
            memcpy(s, &sum, 8);
            ++s[1];
          });
        } else if constexpr (std::is_same_v<T, __int128>) {
          each([](uint64_t* s, __int128 x) {
            SetI128(s, CheckedAdd(GetI128(s), x));
            ++s[2];
          });
        } else if constexpr (std::is_integral_v<T>) {
          each([](uint64_t* s, T x) {
            SetI128(s, GetI128(s) + static_cast<int64_t>(x));
            ++s[2];
          });
        }
        break;
      case AggKind::kMin:
      case AggKind::kMax:
      case AggKind::kAnyValue: {
        const int order = MinMaxOrder(spec.kind);
        if constexpr (std::is_same_v<T, std::string_view>) {
          StringArena* arena = Arena();
          each([&](uint64_t* s, std::string_view x) {
            std::string_view cur(reinterpret_cast<const char*>(s[0]), s[1]);
            if (s[2] == 0 || Better(order, x, cur)) {
              std::string_view o = arena->Add(x);
              s[0] = reinterpret_cast<uint64_t>(o.data());
              s[1] = o.size();
              s[2] = 1;
            }
          });
        } else if constexpr (std::is_same_v<T, __int128>) {
          each([&](uint64_t* s, __int128 x) {
            if (s[2] == 0 || Better(order, x, GetI128(s))) {
              SetI128(s, x);
              s[2] = 1;
            }
          });
        } else {
          each([&](uint64_t* s, T x) {
            T cur;
            if constexpr (std::is_same_v<T, double>) {
              memcpy(&cur, s, 8);
            } else {
              cur = static_cast<T>(static_cast<int64_t>(s[0]));
            }
            if (s[1] == 0 || Better(order, x, cur)) {
              if constexpr (std::is_same_v<T, double>) {
                memcpy(s, &x, 8);
              } else {
                s[0] = static_cast<uint64_t>(static_cast<int64_t>(x));
              }
              s[1] = 1;
            }
          });
        }
        break;
      }
      case AggKind::kCountDistinct:
      case AggKind::kSumDistinct:
      case AggKind::kAvgDistinct:
        if constexpr (std::is_same_v<T, std::string_view>) {
          bool trim = spec.input_type.id == TypeId::kChar;
          each([&](uint64_t* s, std::string_view x) {
            AddDistinct(s[0], std::string(trim ? TrimTrailingBlanks(x) : x));
          });
        } else if constexpr (std::is_same_v<T, __int128>) {
          each([&](uint64_t* s, __int128 x) { AddDistinct(s[0], WideBytes(x)); });
        } else if constexpr (std::is_same_v<T, double>) {
          each([&](uint64_t* s, double x) {
            double y = x == 0 ? 0.0 : x;
            uint64_t bits;
            memcpy(&bits, &y, 8);
            AddDistinct(s[0], bits);
          });
        } else {
          each([&](uint64_t* s, T x) { AddDistinct(s[0], static_cast<int64_t>(x)); });
        }
        break;
      case AggKind::kCountStar:
      case AggKind::kStringAgg:
      case AggKind::kArrayAgg:
        break;
    }
  });
}

void GroupTable::Merge(const GroupTable& src, uint32_t sg) {
  uint32_t g;
  uint64_t h = src.hashes_[sg];
  FindOrInsert(&src.keys_[size_t{sg} * enc_->words()], &h, 1, &g);
  uint64_t* d = State(g);
  const uint64_t* s = src.State(sg);
  for (size_t a = 0; a < aggs_->size(); ++a) {
    const AggregateSpec& spec = (*aggs_)[a];
    uint64_t* da = d + offsets_[a];
    const uint64_t* sa = s + offsets_[a];
    switch (spec.kind) {
      case AggKind::kCountStar:
      case AggKind::kCount:
        da[0] += sa[0];
        break;
      case AggKind::kSum:
      case AggKind::kAvg:
        if (IsIntSum(spec)) {
          SetI128(da, CheckedAdd(GetI128(da), GetI128(sa)));
          da[2] += sa[2];
        } else {
          double x, y;
          memcpy(&x, da, 8);
          memcpy(&y, sa, 8);
          x += y;
          memcpy(da, &x, 8);
          da[1] += sa[1];
        }
        break;
      case AggKind::kMin:
      case AggKind::kMax:
      case AggKind::kAnyValue: {
        const int order = MinMaxOrder(spec.kind);
        PhysicalType p = PhysicalTypeOf(spec.input_type);
        if (p == PhysicalType::kInt128) {
          if (sa[2] == 0) break;
          if (da[2] == 0 || Better(order, GetI128(sa), GetI128(da))) {
            SetI128(da, GetI128(sa));
            da[2] = 1;
          }
        } else if (p == PhysicalType::kString) {
          if (sa[2] == 0) break;
          std::string_view x(reinterpret_cast<const char*>(sa[0]), sa[1]);
          std::string_view cur(reinterpret_cast<const char*>(da[0]), da[1]);
          if (da[2] == 0 || Better(order, x, cur)) {
            std::string_view o = Arena()->Add(x);
            da[0] = reinterpret_cast<uint64_t>(o.data());
            da[1] = o.size();
            da[2] = 1;
          }
        } else {
          if (sa[1] == 0) break;
          bool better;
          if (p == PhysicalType::kDouble) {
            double x, y;
            memcpy(&x, sa, 8);
            memcpy(&y, da, 8);
            better = Better(order, x, y);
          } else {
            better = Better(order, static_cast<int64_t>(sa[0]), static_cast<int64_t>(da[0]));
          }
          if (da[1] == 0 || better) {
            da[0] = sa[0];
            da[1] = 1;
          }
        }
        break;
      }
      case AggKind::kCountDistinct:
      case AggKind::kSumDistinct:
      case AggKind::kAvgDistinct:
        if (DistinctAsBytes(spec.input_type)) {
          for (const auto& x : src.distinct_s_[sa[0]]) AddDistinct(da[0], x);
        } else {
          for (uint64_t x : src.distinct_[sa[0]]) AddDistinct(da[0], x);
        }
        break;
      case AggKind::kStringAgg:
      case AggKind::kArrayAgg: {
        const ListAggValues& from = src.lists_[sa[0]];
        ListAggValues& to = lists_[da[0]];
        to.insert(to.end(), from.begin(), from.end());
        break;
      }
    }
  }
}

void GroupTable::Emit(std::vector<DataChunk>* out) const {
  std::vector<Type> types = enc_->types();
  for (const auto& a : *aggs_) types.push_back(AggregateResultType(a));
  const uint32_t nk = static_cast<uint32_t>(enc_->types().size());
  // Rows i in [at, at + n) of the chunk are groups first + (i - at).
  for (uint32_t first = 0; first < size();) {
    if (out->empty() || out->back().size() == kVectorSize) out->emplace_back(types);
    DataChunk& chunk = out->back();
    const uint32_t at = chunk.size();
    const uint32_t n = std::min(kVectorSize - at, size() - first);
    for (uint32_t i = at; i < at + n; ++i) {
      uint32_t g = first + i - at;
      const uint64_t* key = &keys_[size_t{g} * enc_->words()];
      for (uint32_t c = 0; c < nk; ++c) enc_->Decode(key, c, &chunk.column(c), i);
    }
    for (size_t a = 0; a < aggs_->size(); ++a) {
      const AggregateSpec& spec = (*aggs_)[a];
      Vector& v = chunk.column(nk + a);
      for (uint32_t i = at; i < at + n; ++i) {
        const uint64_t* s = State(first + i - at) + offsets_[a];
        switch (spec.kind) {
          case AggKind::kCountStar:
          case AggKind::kCount:
            v.mutable_data<int64_t>()[i] = static_cast<int64_t>(s[0]);
            break;
          case AggKind::kCountDistinct:
            v.mutable_data<int64_t>()[i] =
                static_cast<int64_t>(DistinctAsBytes(spec.input_type) ? distinct_s_[s[0]].size()
                                                                      : distinct_[s[0]].size());
            break;
          case AggKind::kSum:
          case AggKind::kAvg:
          case AggKind::kSumDistinct:
          case AggKind::kAvgDistinct: {
            bool is_int = IsIntSum(spec);
            uint64_t summed[3] = {0, 0, 0};
            if (spec.kind == AggKind::kSumDistinct || spec.kind == AggKind::kAvgDistinct) {
              if (spec.input_type.IsWideDecimal()) {
                __int128 sum = 0;
                for (const std::string& x : distinct_s_[s[0]])
                  sum = CheckedAdd(sum, FromWideBytes(x));
                SetI128(summed, sum);
                summed[2] = distinct_s_[s[0]].size();
              } else {
                SumDistinct(spec, distinct_[s[0]], summed);
              }
              s = summed;
            }
            const bool is_sum = spec.kind == AggKind::kSum || spec.kind == AggKind::kSumDistinct;
            uint64_t cnt = is_int ? s[2] : s[1];
            if (cnt == 0) {
              v.SetNull(i, true);
              break;
            }
            if (!is_int) {
              double x;
              memcpy(&x, s, 8);
              v.mutable_data<double>()[i] = is_sum ? x : x / cnt;
              break;
            }
            __int128 sum = GetI128(s);
            bool dec = spec.input_type.id == TypeId::kDecimal;
            if (is_sum) {
              if (dec) {
                v.mutable_data<__int128>()[i] = decimal::CheckWide(sum, kMaxDecimalPrecision);
              } else {
                if (sum > INT64_MAX || sum < INT64_MIN) OutOfRange(Type::BigInt());
                v.mutable_data<int64_t>()[i] = static_cast<int64_t>(sum);
              }
            } else if (dec) {
              const Type& in = spec.input_type;
              int to = AvgScale(in);
              __int128 avg = decimal::CheckWide(
                  decimal::MulDivRound(sum, decimal::Pow10Wide(to - in.scale), cnt),
                  AvgPrecision(in));
              if (in.IsWideDecimal()) {
                v.mutable_data<__int128>()[i] = avg;
              } else {
                v.mutable_data<int64_t>()[i] = static_cast<int64_t>(avg);
              }
            } else {
              v.mutable_data<double>()[i] =
                  static_cast<double>(static_cast<long double>(sum) / cnt);
            }
            break;
          }
          case AggKind::kStringAgg:
          case AggKind::kArrayAgg: {
            ListAggValues l = lists_[s[0]];
            SortListAgg(spec.order, &l);
            std::optional<std::string> r = spec.kind == AggKind::kStringAgg
                                               ? StringAggResult(l, spec.separator)
                                               : ArrayAggResult(l);
            if (!r) {
              v.SetNull(i, true);
            } else {
              v.mutable_data<std::string_view>()[i] = Arena()->Add(*r);
            }
            break;
          }
          case AggKind::kMin:
          case AggKind::kMax:
          case AggKind::kAnyValue: {
            bool three_words = spec.input_type.StoredAsString() || spec.input_type.IsWideDecimal();
            if ((three_words ? s[2] : s[1]) == 0) {
              v.SetNull(i, true);
              break;
            }
            DispatchPhysical(v.physical(), [&]<typename T>() {
              T* d = v.mutable_data<T>();
              if constexpr (std::is_same_v<T, std::string_view>) {
                d[i] = std::string_view(reinterpret_cast<const char*>(s[0]), s[1]);
              } else if constexpr (std::is_same_v<T, double>) {
                memcpy(&d[i], s, 8);
              } else if constexpr (std::is_same_v<T, __int128>) {
                d[i] = GetI128(s);
              } else {
                d[i] = static_cast<T>(static_cast<int64_t>(s[0]));
              }
            });
            break;
          }
        }
      }
    }
    chunk.set_size(at + n);
    first += n;
  }
}

}  // namespace forktail
