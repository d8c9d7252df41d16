// Mutexes that fork() must not copy while another thread holds them.
//
// A snapshot process is forked from a parent whose other threads (sessions
// binding statements, say) may hold a mutex at that instant. The child's copy
// of that mutex stays locked for ever: the first time the child needs it, it
// hangs (DESIGN.md, fork safety). HoldAcrossFork(mu) registers `mu` with
// pthread_atfork: the forking thread locks it before fork() and unlocks it on
// both sides afterwards, so the child finds it free and the data it guards
// whole.
//
// Only for leaf locks - no other lock is taken while one is held - that the
// forking thread never holds when it forks (fork waits for the holder). The
// registered mutex must live until the process exits.
#pragma once

#include <mutex>

namespace forktail {

void HoldAcrossFork(std::mutex* mu);

}  // namespace forktail
