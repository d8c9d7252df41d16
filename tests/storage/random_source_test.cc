// random_source.h: draws repeat inside replay scopes of one seed, and only
// there.
#include "storage/value/random_source.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "storage/value/uuid.h"

namespace forktail::random_source {
namespace {

std::vector<uint64_t> Draw(int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; i++) out.push_back(Next());
  return out;
}

TEST(RandomSource, AScopeOfTheSameSeedDrawsTheSameValues) {
  const uint64_t seed = NewSeed();
  std::vector<uint64_t> first, second;
  std::string uuid_first, uuid_second;
  {
    ReplayScope scope(seed);
    first = Draw(5);
    uuid_first = uuid::Random();
  }
  {
    ReplayScope scope(seed);
    second = Draw(5);
    uuid_second = uuid::Random();
  }
  EXPECT_EQ(first, second);
  EXPECT_EQ(uuid_first, uuid_second);
  {
    ReplayScope other(seed + 1);
    EXPECT_NE(Draw(5), first);
  }
}

TEST(RandomSource, ScopesNestAndOutsideThemDrawsDoNotRepeat) {
  const uint64_t seed = NewSeed();
  ReplayScope outer(seed);
  const uint64_t a = Next();
  {
    ReplayScope inner(seed);
    EXPECT_EQ(Next(), a);  // the inner scope starts the sequence again
  }
  const uint64_t b = Next();  // the outer one goes on where it was
  {
    ReplayScope again(seed);
    EXPECT_EQ(Next(), a);
    EXPECT_EQ(Next(), b);
  }
}

TEST(RandomSource, WithoutAScopeUuidsAreDistinct) {
  EXPECT_NE(uuid::Random(), uuid::Random());
  EXPECT_NE(Draw(4), Draw(4));
}

}  // namespace
}  // namespace forktail::random_source
