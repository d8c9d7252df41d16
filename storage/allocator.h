// The allocator behind malloc in every Forktail binary.
//
// Release builds link jemalloc (cmake: FORKTAIL_ALLOCATOR, default jemalloc;
// sanitizer builds keep glibc's, which the sanitizers replace). Why: the
// transaction thread allocates what other threads free (the log writer frees
// the commit callbacks, submitters free results) and frees what they
// allocated (a transaction's closure and arguments). glibc hands such a
// free back to the arena of the thread that allocated it, under that arena's
// lock, so the transaction thread's own malloc waits on that lock and wakes
// its waiters with futex calls: in-process TPC-C spent ~5% of the
// transaction thread in futex calls from malloc and free. jemalloc returns
// remote frees without taking the allocating thread's lock. Measured
// (bench/tpcc/README.md, "Allocator"): in-process TPC-C +19% (durable
// commits) and +7% (asynchronous), TPC-H SF1 -4% time and -20% peak RSS.
//
// Fork safety (DESIGN.md): jemalloc, like glibc, registers pthread_atfork
// handlers that hold its locks across fork(), so a snapshot process never
// inherits one held by a parent thread (tests/snapshot/fork_safety_test.cc).
#pragma once

#include <string>

namespace forktail {

// "jemalloc 5.3.0-..." or "glibc malloc".
std::string AllocatorName();

// Gives memory the allocator holds free back to the kernel: jemalloc purges
// every arena's unused dirty pages, glibc trims its heaps (malloc_trim).
void ReleaseFreeAllocatorMemory();

}  // namespace forktail
