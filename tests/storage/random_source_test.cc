// random_source.h: draws repeat inside replay scopes of one seed, and only
// there.
#include "storage/value/random_source.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

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

// A forked process (a snapshot process) draws its own sequence: with the
// parent's generator state it would draw the parent's next value.
TEST(RandomSource, AForkedProcessDoesNotRepeatItsParentsDraws) {
  Next();  // this thread's generator is seeded
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    uint64_t drawn[2] = {Next(), NewSeed()};
    ssize_t written = write(fds[1], drawn, sizeof drawn);
    _exit(written == sizeof drawn ? 0 : 1);
  }
  uint64_t in_child[2] = {0, 0};
  ASSERT_EQ(read(fds[0], in_child, sizeof in_child), static_cast<ssize_t>(sizeof in_child));
  int status = 0;
  waitpid(child, &status, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const uint64_t here[2] = {Next(), NewSeed()};
  EXPECT_NE(in_child[0], here[0]);
  EXPECT_NE(in_child[1], here[1]);
}

}  // namespace
}  // namespace forktail::random_source
