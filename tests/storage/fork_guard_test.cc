// HoldAcrossFork (storage/fork_guard.h): a child forked while another thread
// holds a registered mutex finds it free; an unregistered one stays locked in
// the child (the hang it prevents).
#include "storage/fork_guard.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace forktail {
namespace {

// Forks while a second thread holds `mu` (it lets go after 200 ms); the child
// exits 0 if it can take `mu`, 1 if not.
int ChildCanLock(std::mutex* mu) {
  std::atomic<bool> held{false};
  std::thread holder([&] {
    std::lock_guard<std::mutex> lock(*mu);
    held = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  while (!held) std::this_thread::yield();
  const pid_t pid = fork();
  if (pid == 0) _exit(mu->try_lock() ? 0 : 1);
  holder.join();
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

TEST(ForkGuardTest, ARegisteredMutexIsFreeInTheChild) {
  static std::mutex registered;
  HoldAcrossFork(&registered);
  EXPECT_EQ(ChildCanLock(&registered), 0);
}

TEST(ForkGuardTest, AnUnregisteredMutexStaysLockedInTheChild) {
  static std::mutex plain;
  EXPECT_EQ(ChildCanLock(&plain), 1);
}

}  // namespace
}  // namespace forktail
