#include "storage/fork_guard.h"

#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace forktail {
namespace {

// A fixed table: the fork handlers must not allocate. Few modules need it.
constexpr int kMaxMutexes = 16;
std::mutex* g_mutexes[kMaxMutexes];
std::atomic<int> g_registered{0};
// How many the prepare handler locked: a mutex registered during a fork is
// neither locked nor unlocked by it.
int g_held = 0;

void Prepare() {
  g_held = g_registered.load(std::memory_order_acquire);
  for (int i = 0; i < g_held; i++) g_mutexes[i]->lock();
}

void Release() {
  for (int i = g_held - 1; i >= 0; i--) g_mutexes[i]->unlock();
}

}  // namespace

void HoldAcrossFork(std::mutex* mu) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(Prepare, Release, Release); });
  static std::mutex registering;
  std::lock_guard<std::mutex> lock(registering);
  const int n = g_registered.load(std::memory_order_relaxed);
  if (n == kMaxMutexes) {
    std::fprintf(stderr, "HoldAcrossFork: more than %d mutexes\n", kMaxMutexes);
    std::abort();
  }
  g_mutexes[n] = mu;
  g_registered.store(n + 1, std::memory_order_release);
}

}  // namespace forktail
