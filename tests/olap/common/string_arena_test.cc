// StringArena::AddReusing: a string copied a moment ago from the same source
// is returned again, and only when its bytes are still the same; whatever it
// returns always holds the bytes it was given.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "olap/common/vector.h"

namespace forktail {
namespace {

TEST(StringArena, AddReusingReturnsOneCopyForRepeatedSources) {
  StringArena arena;
  const std::string germany = "GERMANY                  ";
  std::string_view first = arena.AddReusing(germany);
  std::string_view again = arena.AddReusing(germany);
  EXPECT_EQ(first, germany);
  EXPECT_EQ(first.data(), again.data());  // not copied twice
  EXPECT_NE(first.data(), germany.data());
  EXPECT_EQ(arena.bytes(), germany.size());
  EXPECT_TRUE(arena.AddReusing({}).empty());
}

TEST(StringArena, AddReusingCopiesAgainWhenTheSourceChanged) {
  StringArena arena;
  std::string source = "first value";
  std::string_view a = arena.AddReusing(source);
  source.replace(0, 5, "other");  // same address and length, new bytes
  std::string_view b = arena.AddReusing(source);
  EXPECT_EQ(a, "first value");
  EXPECT_EQ(b, "other value");
  source.resize(5);  // same address, shorter
  EXPECT_EQ(arena.AddReusing(source), "other");
}

TEST(StringArena, AddReusingAlwaysReturnsTheGivenBytes) {
  std::mt19937_64 rng(11);
  StringArena arena;
  // A buffer rewritten in place between calls, as a reused chunk would be.
  std::string buffer(4096, 'x');
  for (int i = 0; i < 20000; ++i) {
    size_t at = rng() % 4000, len = 1 + rng() % 64;
    len = std::min(len, buffer.size() - at);
    if (rng() % 4 == 0) buffer[at + rng() % len] = static_cast<char>('a' + rng() % 3);
    std::string_view source(buffer.data() + at, len);
    std::string expected(source);
    std::string_view copy = arena.AddReusing(source);
    ASSERT_EQ(copy, expected) << "call " << i;
    ASSERT_NE(copy.data(), source.data());
  }
}

}  // namespace
}  // namespace forktail
