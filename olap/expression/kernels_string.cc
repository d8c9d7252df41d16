// LIKE and SUBSTRING kernels.
#include <cstring>

#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"

namespace forktail {

LikeMatcher::LikeMatcher(std::string_view pattern, char escape) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (escape != 0 && c == escape) {
      if (i + 1 == pattern.size()) {
        throw DbError("22025", "LIKE pattern must not end with escape character");
      }
      pattern_.push_back(pattern[++i]);
      kinds_.push_back(0);
    } else if (c == '%') {
      if (!kinds_.empty() && kinds_.back() == 2) continue;  // %% == %
      pattern_.push_back(c);
      kinds_.push_back(2);
    } else {
      pattern_.push_back(c);
      kinds_.push_back(c == '_' ? 1 : 0);
    }
  }
  // Recognize the shapes most queries use: 'abc', 'abc%', '%abc', '%abc%'.
  size_t n = kinds_.size();
  size_t percents = 0, unders = 0;
  for (uint8_t k : kinds_) {
    percents += k == 2;
    unders += k == 1;
  }
  if (unders > 0) return;
  bool lead = n > 0 && kinds_[0] == 2, trail = n > 0 && kinds_[n - 1] == 2;
  if (percents == 0) {
    shape_ = Shape::kExact;
    literal_ = pattern_;
  } else if (percents == 1 && trail && !lead) {
    shape_ = Shape::kPrefix;
    literal_ = pattern_.substr(0, n - 1);
  } else if (percents == 1 && lead && !trail) {
    shape_ = Shape::kSuffix;
    literal_ = pattern_.substr(1);
  } else if (percents == 2 && lead && trail && n >= 2) {
    shape_ = Shape::kContains;
    literal_ = pattern_.substr(1, n - 2);
  } else {
    // 'a%b%c', '%special%requests%': literals between the '%'s, each found
    // by a substring search after the previous one (the leftmost match of
    // each is the best: without '_' no later position can help).
    shape_ = Shape::kSegments;
    anchored_start_ = !lead;
    anchored_end_ = !trail;
    std::string piece;
    for (size_t i = 0; i <= n; ++i) {
      if (i == n || kinds_[i] == 2) {
        if (!piece.empty()) segments_.push_back(std::move(piece));
        piece.clear();
      } else {
        piece.push_back(pattern_[i]);
      }
    }
  }
}

bool LikeMatcher::MatchSegments(std::string_view s) const {
  size_t pos = 0;
  size_t first = 0, last = segments_.size();
  if (anchored_start_) {
    const std::string& seg = segments_[0];
    if (s.substr(0, seg.size()) != seg) return false;
    pos = seg.size();
    first = 1;
  }
  if (anchored_end_) {
    const std::string& seg = segments_.back();
    if (s.size() < pos + seg.size() || s.substr(s.size() - seg.size()) != seg) return false;
    s = s.substr(0, s.size() - seg.size());
    last -= 1;
  }
  for (size_t i = first; i < last; ++i) {
    const std::string& seg = segments_[i];
    if (pos > s.size()) return false;
    const void* hit = memmem(s.data() + pos, s.size() - pos, seg.data(), seg.size());
    if (hit == nullptr) return false;
    pos = static_cast<size_t>(static_cast<const char*>(hit) - s.data()) + seg.size();
  }
  return true;
}

std::optional<std::vector<std::string>> LikeMatcher::ContainedLiterals() const {
  if (shape_ == Shape::kContains) return std::vector<std::string>{literal_};
  if (shape_ == Shape::kSegments && !anchored_start_ && !anchored_end_) return segments_;
  return std::nullopt;
}

bool LikeMatcher::Match(std::string_view s) const {
  switch (shape_) {
    case Shape::kExact:
      return s == literal_;
    case Shape::kPrefix:
      return s.substr(0, literal_.size()) == literal_;
    case Shape::kSuffix:
      return s.size() >= literal_.size() && s.substr(s.size() - literal_.size()) == literal_;
    case Shape::kContains:
      return s.find(literal_) != std::string_view::npos;
    case Shape::kSegments:
      return MatchSegments(s);
    case Shape::kGeneral:
      break;
  }
  // Greedy matcher with backtracking to the last '%': linear in practice.
  size_t p = 0, i = 0, star_p = std::string::npos, star_i = 0;
  size_t n = pattern_.size();
  while (i < s.size()) {
    if (p < n && kinds_[p] == 2) {
      star_p = p++;
      star_i = i;
    } else if (p < n && (kinds_[p] == 1 || pattern_[p] == s[i])) {
      ++p;
      ++i;
    } else if (star_p != std::string::npos) {
      p = star_p + 1;
      i = ++star_i;
    } else {
      return false;
    }
  }
  while (p < n && kinds_[p] == 2) ++p;
  return p == n;
}

void LikeKernel(const LikeMatcher& m, bool negated, const Vector& in, Rows rows, Vector* out) {
  UnionNulls(in, nullptr, rows, out);
  const auto* a = in.data<std::string_view>();
  uint8_t* o = out->mutable_data<uint8_t>();
  const uint64_t* nulls = in.nulls();
  ForEachRow(rows, [&](uint32_t i) {
    if (!NullAt(nulls, i)) o[i] = m.Match(a[i]) != negated;
  });
}

void SubstringKernel(const Vector& s, const Vector& start, const Vector* len, Rows rows,
                     Vector* out) {
  // PostgreSQL: characters from `start` (1-based; may be <= 0) for `len`;
  // the result is the overlap of [start, start+len) with [1, size]. A
  // negative length is an error. Results are views into the input.
  UnionNulls(s, &start, rows, out);
  if (len != nullptr && len->nulls() != nullptr) {
    ForEachRow(rows, [&](uint32_t i) {
      if (len->IsNull(i)) out->SetNull(i, true);
    });
  }
  const auto* a = s.data<std::string_view>();
  const int64_t* st = start.data<int64_t>();
  const int64_t* ln = len == nullptr ? nullptr : len->data<int64_t>();
  auto* o = out->mutable_data<std::string_view>();
  const uint64_t* nulls = out->nulls();
  ForEachRow(rows, [&](uint32_t i) {
    if (NullAt(nulls, i)) return;
    int64_t size = static_cast<int64_t>(a[i].size());
    int64_t from = st[i];
    int64_t to = size + 1;  // exclusive, 1-based
    if (ln != nullptr) {
      if (ln[i] < 0) throw DbError("22011", "negative substring length not allowed");
      to = __builtin_add_overflow(from, ln[i], &to) ? size + 1 : std::min(to, size + 1);
    }
    from = std::max<int64_t>(from, 1);
    o[i] = from >= to ? std::string_view() : a[i].substr(from - 1, to - from);
  });
}

}  // namespace forktail
