// LikeMatcher against a plain recursive LIKE, over every pattern shape
// (exact, prefix, suffix, contains, '%'-separated literals, '_').
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "olap/expression/kernels.h"

namespace forktail {
namespace {

// SQL LIKE without escapes: '%' any run, '_' one byte.
bool ReferenceLike(std::string_view s, std::string_view p) {
  if (p.empty()) return s.empty();
  if (p[0] == '%') {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (ReferenceLike(s.substr(i), p.substr(1))) return true;
    }
    return false;
  }
  if (s.empty()) return false;
  if (p[0] != '_' && p[0] != s[0]) return false;
  return ReferenceLike(s.substr(1), p.substr(1));
}

TEST(LikeMatcherTest, SegmentsBetweenPercents) {
  LikeMatcher m("%special%requests%", '\\');
  EXPECT_TRUE(m.Match("the special deposits requests"));
  EXPECT_TRUE(m.Match("specialrequests"));
  EXPECT_FALSE(m.Match("requests special"));
  EXPECT_FALSE(m.Match("special request"));
  LikeMatcher anchored("ab%bc", '\\');
  EXPECT_FALSE(anchored.Match("abc"));  // the two literals may not overlap
  EXPECT_TRUE(anchored.Match("abbc"));
  EXPECT_TRUE(anchored.Match("ab-x-bc"));
  EXPECT_FALSE(anchored.Match("ab-x-bcd"));
  LikeMatcher all("%", '\\');
  EXPECT_TRUE(all.Match(""));
  EXPECT_TRUE(all.Match("x"));
  LikeMatcher escaped("a\\%%b", '\\');  // literal '%' then any run
  EXPECT_TRUE(escaped.Match("a%xb"));
  EXPECT_FALSE(escaped.Match("axb"));
}

TEST(LikeMatcherTest, AgreesWithReferenceOnRandomPatterns) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab";
  const std::string pattern_alphabet = "ab%_";
  auto random = [&](const std::string& from, size_t max_len) {
    std::string s(rng() % (max_len + 1), ' ');
    for (char& c : s) c = from[rng() % from.size()];
    return s;
  };
  for (int i = 0; i < 3000; ++i) {
    const std::string p = random(pattern_alphabet, 6);
    LikeMatcher m(p, 0);
    for (int j = 0; j < 20; ++j) {
      const std::string s = random(alphabet, 8);
      ASSERT_EQ(m.Match(s), ReferenceLike(s, p)) << "'" << s << "' LIKE '" << p << "'";
    }
  }
}

}  // namespace
}  // namespace forktail
