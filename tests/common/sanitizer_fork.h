// Forking a busy multi-threaded parent under a sanitizer is unreliable: GCC
// 12's ASan/TSan allocators install no fork handlers (glibc's malloc does), so
// a child forked while another thread holds a sanitizer allocator lock can
// block forever. Production builds are not affected. Tests that fork a busy
// parent hundreds of times therefore skip in sanitizer builds and run in the
// Release build instead (`make release-test`, which CI runs).
#pragma once

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER()                           \
  GTEST_SKIP() << "forks a busy multi-threaded parent many times: sanitizer " \
                  "allocators are not fork-safe; runs in make release-test"
#else
#define FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER() \
  do {                                              \
  } while (0)
#endif
