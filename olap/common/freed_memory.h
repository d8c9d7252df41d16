// Giving memory that the allocator holds free back to the kernel.
//
// An allocator keeps what was freed for later allocations: without returning
// it the RSS ratchets up query after query (with glibc's malloc, TPC-H SF1,
// the 22 queries in a row: +1.4 GiB, more than any one query's peak) and
// after a large COPY (a 6 GB batch of rows, freed at its commit, stayed
// resident). ReturnFreedMemory() calls ReleaseFreeAllocatorMemory
// (storage/allocator.h: jemalloc's purge, or glibc's malloc_trim) once the
// RSS is kTrimSlackBytes above what it was after the last trim; below that
// the pages stay for the next statements (faulting them in again costs CPU:
// trimming after every query cost ~15% more CPU at SF1). The RSS is the
// measure because glibc's free-byte count (mallinfo2) still counts the pages
// a trim gave back.
#pragma once

#include <chrono>
#include <cstddef>

namespace forktail {

inline constexpr size_t kTrimSlackBytes = size_t{256} << 20;
// Over kTrimSlackBytes, ReturnFreedMemory trims at most once per
// kTrimInterval: a trim gives back what the next statements fault in again
// (TPC-H Q18 at SF1 over 400 MiB of frozen blocks, whose runs each grow the
// RSS by ~280 MiB: 143 ms a run when every run trimmed, 94 without), so
// statements in quick succession keep their memory, and a burst's growth
// goes back at its first statement after the interval. Past
// kTrimHardSlackBytes a statement trims at once.
inline constexpr std::chrono::seconds kTrimInterval{5};
inline constexpr size_t kTrimHardSlackBytes = size_t{1} << 30;

// Call after a statement that may have freed much (a query, a COPY). Cheap
// when there is little to give back: one read of /proc/self/statm, and none
// at all after a statement that ran less than kQuickStatement while the
// last read is less than kRecheckInterval old (a statement that quick cannot
// have grown the RSS by kTrimSlackBytes; point queries at tens of thousands
// per second paid an open, read and close of /proc each).
inline constexpr std::chrono::milliseconds kQuickStatement{2};
inline constexpr std::chrono::milliseconds kRecheckInterval{1000};
void ReturnFreedMemory(std::chrono::steady_clock::duration statement_time =
                           std::chrono::steady_clock::duration::max());
// Trims now, whatever the RSS: after freezing blocks, which shrinks
// the RSS (the plain blocks are unmapped) while leaving the encoders' freed
// buffers in the arenas, where the rule above would not look.
void TrimFreedMemory();

// This process's resident set size in bytes (0 if /proc is unreadable).
size_t ResidentBytes();

}  // namespace forktail
