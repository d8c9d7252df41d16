// KeyEncoder: keys are equal iff their values are (CHAR without trailing
// blanks, NULL only to NULL), equal keys hash alike, and Decode gives the
// values back, for strings held inline (up to 8 bytes) and by pointer.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "olap/common/key_encoder.h"

namespace forktail {
namespace {

// Strings of length 0..12 over a tiny alphabet, so that many are equal.
std::string RandomString(std::mt19937_64& rng) {
  std::string s(rng() % 13, ' ');
  for (char& ch : s) ch = "ab "[rng() % 3];
  return s;
}

std::string TrimBlanks(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

TEST(KeyEncoder, EqualIffValuesEqualForInlineAndLongStrings) {
  const uint64_t seed = 7;
  std::mt19937_64 rng(seed);
  constexpr uint32_t kRows = 600;
  const std::vector<Type> types = {Type::Text(), Type::Char(12), Type::Integer()};
  KeyEncoder enc(types);
  DataChunk chunk(types);
  std::vector<std::string> text(kRows), chars(kRows);
  std::vector<bool> null_text(kRows);
  for (uint32_t i = 0; i < kRows; ++i) {
    text[i] = RandomString(rng);
    chars[i] = RandomString(rng);
    null_text[i] = rng() % 10 == 0;
    auto& t = chunk.column(0);
    t.mutable_data<std::string_view>()[i] = t.arena()->Add(text[i]);
    t.SetNull(i, null_text[i]);
    auto& c = chunk.column(1);
    c.mutable_data<std::string_view>()[i] = c.arena()->Add(chars[i]);
    chunk.column(2).mutable_data<int32_t>()[i] = static_cast<int32_t>(rng() % 2);
  }
  chunk.set_size(kRows);
  const uint32_t w = enc.words();
  std::vector<uint64_t> keys(size_t{kRows} * w), hashes(kRows);
  enc.Encode(chunk, {0, 1, 2}, chunk.rows(), keys.data(), hashes.data());

  auto same = [&](uint32_t i, uint32_t j) {
    return null_text[i] == null_text[j] && (null_text[i] || text[i] == text[j]) &&
           TrimBlanks(chars[i]) == TrimBlanks(chars[j]) &&
           chunk.column(2).data<int32_t>()[i] == chunk.column(2).data<int32_t>()[j];
  };
  size_t equal_pairs = 0;
  for (uint32_t i = 0; i < kRows; ++i) {
    for (uint32_t j = 0; j < kRows; ++j) {
      const bool eq = enc.Equal(&keys[size_t{i} * w], &keys[size_t{j} * w]);
      ASSERT_EQ(eq, same(i, j)) << "rows " << i << ", " << j << " seed " << seed;
      if (eq) {
        ASSERT_EQ(hashes[i], hashes[j]);
      }
      equal_pairs += eq && i != j;
    }
  }
  EXPECT_GT(equal_pairs, 0u);  // the test compares equal keys too

  // Owned keys outlive the input; Decode gives the (trimmed) values back.
  StringArena arena;
  std::vector<uint64_t> owned = keys;
  for (uint32_t i = 0; i < kRows; ++i) enc.Own(&owned[size_t{i} * w], &arena);
  chunk = DataChunk(types);  // the input's strings are gone
  DataChunk out(types);
  for (uint32_t i = 0; i < kRows; ++i) {
    for (uint32_t c = 0; c < 3; ++c) enc.Decode(&owned[size_t{i} * w], c, &out.column(c), i);
  }
  for (uint32_t i = 0; i < kRows; ++i) {
    ASSERT_EQ(out.column(0).IsNull(i), null_text[i]) << i;
    if (!null_text[i]) {
      EXPECT_EQ(out.column(0).data<std::string_view>()[i], text[i]) << i;
    }
    EXPECT_EQ(out.column(1).data<std::string_view>()[i], TrimBlanks(chars[i])) << i;
  }
}

}  // namespace
}  // namespace forktail
