// The FSST string codec (storage/table/fsst.h): every string round-trips
// with any table, text shrinks, random bytes do not grow past the escape
// bound, Valid refuses codes a table cannot decode, and ContainsMatcher on
// the codes agrees with a substring search on the decoded strings.
#include "storage/table/fsst.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace forktail::fsst {
namespace {

std::string Words(std::mt19937_64& rng, size_t n) {
  static const char* const kWords[] = {"carefully", "final",    "deposits", "haggle",  "slyly",
                                       "regular",   "packages", "among",    "the",     "ironic",
                                       "requests",  "boost",    "quickly",  "express", "accounts"};
  std::string s;
  for (size_t i = 0; i < n; i++) {
    if (i > 0) s += ' ';
    s += kWords[rng() % std::size(kWords)];
  }
  return s;
}

std::string RoundTrip(const SymbolTable& table, std::string_view s) {
  const Encoder encoder(table);
  std::vector<uint8_t> codes;
  encoder.Encode(s, &codes);
  EXPECT_LE(codes.size(), 2 * s.size());
  EXPECT_TRUE(Valid(table.count, codes.data(), codes.size()));
  const size_t size = DecodedSize(table.lengths, codes.data(), codes.size());
  std::string out(size + kDecodeSlack, '\0');
  EXPECT_EQ(Decode(table.symbols, table.lengths, codes.data(), codes.size(), out.data()), size);
  out.resize(size);
  return out;
}

TEST(Fsst, TextShrinksAndRoundTrips) {
  std::mt19937_64 rng(1);
  std::vector<std::string> text;
  for (int i = 0; i < 2000; i++) text.push_back(Words(rng, 1 + rng() % 10));
  const std::vector<std::string_view> sample(text.begin(), text.begin() + 500);
  const SymbolTable table = Train(sample);
  EXPECT_GT(table.count, 50u);
  EXPECT_LE(table.count, kMaxSymbols);
  const Encoder encoder(table);
  size_t plain = 0, packed = 0;
  for (const std::string& s : text) {
    ASSERT_EQ(RoundTrip(table, s), s);
    std::vector<uint8_t> codes;
    encoder.Encode(s, &codes);
    plain += s.size();
    packed += codes.size();
  }
  // Strings the sample did not hold compress as well: the words recur.
  EXPECT_LT(packed * 100, plain * 45) << packed << " of " << plain;
}

TEST(Fsst, EdgeStringsRoundTripWithAnyTable) {
  std::mt19937_64 rng(2);
  std::string all_bytes;
  for (int b = 0; b < 256; b++) all_bytes += static_cast<char>(b);
  const std::vector<std::string> edge = {
      "",          std::string(1, '\0'),           std::string(17, '\0'),
      all_bytes,   std::string(9000, 'x'),         "abcdefgh",
      "abcdefghi", std::string("\xff\xff\xfe", 3), Words(rng, 3)};
  std::string noise;
  for (int i = 0; i < 4000; i++) noise += static_cast<char>(rng());
  // No table, one trained on the edge strings, and one on unrelated text.
  std::vector<std::string> text;
  for (int i = 0; i < 200; i++) text.push_back(Words(rng, 6));
  const std::vector<SymbolTable> tables = {
      SymbolTable{}, Train(std::vector<std::string_view>(edge.begin(), edge.end())),
      Train(std::vector<std::string_view>(text.begin(), text.end()))};
  for (const SymbolTable& table : tables) {
    for (const std::string& s : edge) ASSERT_EQ(RoundTrip(table, s), s);
    ASSERT_EQ(RoundTrip(table, noise), noise);
  }
  // An empty table escapes every byte: exactly two bytes per byte.
  const Encoder none(tables[0]);
  std::vector<uint8_t> codes;
  none.Encode(noise, &codes);
  EXPECT_EQ(codes.size(), 2 * noise.size());
}

TEST(Fsst, TrainingIsDeterministic) {
  std::mt19937_64 rng(3);
  std::vector<std::string> text;
  for (int i = 0; i < 300; i++) text.push_back(Words(rng, 5));
  const std::vector<std::string_view> sample(text.begin(), text.end());
  const SymbolTable a = Train(sample), b = Train(sample);
  ASSERT_EQ(a.count, b.count);
  for (uint32_t i = 0; i < a.count; i++) {
    EXPECT_EQ(a.symbols[i], b.symbols[i]);
    EXPECT_EQ(a.lengths[i], b.lengths[i]);
  }
}

TEST(Fsst, ValidRefusesCodesBeyondTheTableAndCutEscapes) {
  const uint8_t ok[] = {0, 1, kEscape, 7, 2};
  EXPECT_TRUE(Valid(3, ok, sizeof(ok)));
  EXPECT_FALSE(Valid(2, ok, sizeof(ok)));  // code 2 with two symbols
  const uint8_t cut[] = {0, kEscape};
  EXPECT_FALSE(Valid(3, cut, sizeof(cut)));
  const uint8_t escaped_escape[] = {kEscape, kEscape};
  EXPECT_TRUE(Valid(0, escaped_escape, sizeof(escaped_escape)));
  EXPECT_TRUE(Valid(0, nullptr, 0));
}

// Whether s holds the literals in order, without overlap: the reference.
bool HoldsInOrder(std::string_view s, const std::vector<std::string>& literals) {
  size_t at = 0;
  for (const std::string& l : literals) {
    const size_t hit = s.find(l, at);
    if (hit == std::string_view::npos) return false;
    at = hit + l.size();
  }
  return true;
}

// Strings over a small alphabet, so that literals with borders ("abab",
// "aab") meet near misses and overlaps; some hold a byte no table has (an
// escape) in the middle of a literal's occurrence.
TEST(Fsst, ContainsMatcherAgreesWithSubstringSearch) {
  std::mt19937_64 rng(4);
  auto random_string = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; i++) s += "aabbc "[rng() % 6];
    if (rng() % 5 == 0 && !s.empty()) s[rng() % s.size()] = '\x01';
    return s;
  };
  std::vector<std::string> strings = {"", "a", "abab", "ababab", "aab", "aaab"};
  for (int i = 0; i < 3000; i++) strings.push_back(random_string(rng() % 40));
  std::vector<std::string> sample_text;
  for (int i = 0; i < 300; i++) sample_text.push_back(random_string(30));
  const std::vector<SymbolTable> tables = {
      SymbolTable{}, Train(std::vector<std::string_view>(sample_text.begin(), sample_text.end()))};
  ASSERT_GT(tables[1].count, 10u);
  const std::vector<std::vector<std::string>> patterns = {{},
                                                          {""},
                                                          {"a"},
                                                          {"abab"},
                                                          {"aab"},
                                                          {"ab", "ab"},
                                                          {"abab", "c"},
                                                          {"a", "", "b"},
                                                          {"c c", "aa"},
                                                          {"\x01"},
                                                          {"ba", "\x01b"},
                                                          {"aaaa"},
                                                          {"zzz"},
                                                          {"a b", "bc", "a"}};
  for (const SymbolTable& table : tables) {
    const Encoder encoder(table);
    for (const auto& literals : patterns) {
      ASSERT_TRUE(ContainsMatcher::Supports(literals));
      const ContainsMatcher m(table.symbols, table.lengths, table.count, literals);
      size_t matched = 0;
      for (const std::string& s : strings) {
        std::vector<uint8_t> codes;
        encoder.Encode(s, &codes);
        const bool want = HoldsInOrder(s, literals);
        ASSERT_EQ(m.Matches(codes.data(), codes.size()), want)
            << "'" << s << "' with " << literals.size() << " literals, table of " << table.count;
        matched += want;
      }
      if (literals.size() < 2 || literals[0] != "ab") continue;
      EXPECT_GT(matched, 0u);
      EXPECT_LT(matched, strings.size());
    }
  }
  EXPECT_TRUE(ContainsMatcher::Supports({std::string(ContainsMatcher::kMaxLiteralBytes, 'a')}));
  EXPECT_FALSE(ContainsMatcher::Supports({std::string(200, 'a'), std::string(55, 'b')}));
}

}  // namespace
}  // namespace forktail::fsst
