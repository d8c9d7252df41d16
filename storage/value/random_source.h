// Where random() and gen_random_uuid() take their randomness.
//
// Outside a ReplayScope: random() from a per-thread generator seeded from
// the kernel (again in a forked process, so a snapshot process never
// repeats its parent's sequence), gen_random_uuid() straight from the
// kernel.
//
// Inside a ReplayScope (on the thread that opened it): both from one
// generator seeded with the scope's seed. An optimistic transaction block
// runs each statement again at later steps and at COMMIT and commits only
// if the client saw the same result (olap/session/block/optimistic_block.h);
// `INSERT ... RETURNING id` with `id uuid DEFAULT gen_random_uuid()` must
// therefore draw the same uuid each time, or it could never commit. The
// statement keeps its seed and opens a scope at every run; the values are
// as random to the client as any others, and the committed ones are those
// it saw.
#pragma once

#include <cstddef>
#include <cstdint>

namespace forktail::random_source {

// 64 random bits for random().
uint64_t Next();
// `n` random bytes for gen_random_uuid().
void Fill(uint8_t* out, size_t n);
// A seed for a ReplayScope, from the thread's generator (seeded from the
// kernel).
uint64_t NewSeed();

// While alive, this thread's draws repeat for the same seed. Scopes nest
// (the inner one counts until it ends).
class ReplayScope {
 public:
  explicit ReplayScope(uint64_t seed);
  ~ReplayScope();
  ReplayScope(const ReplayScope&) = delete;
  ReplayScope& operator=(const ReplayScope&) = delete;

 private:
  friend uint64_t Next();
  friend void Fill(uint8_t* out, size_t n);
  uint64_t Draw();
  uint64_t state_;
  ReplayScope* previous_;
};

}  // namespace forktail::random_source
