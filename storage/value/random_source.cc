#include "storage/value/random_source.h"

#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "storage/error.h"

namespace forktail::random_source {

namespace {

thread_local ReplayScope* replay = nullptr;

void KernelBytes(uint8_t* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      throw DbError(sqlstate::kInternalError,
                    std::string("could not generate random values: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
}

// Forks seen by this process: a forked child counts one more, so that each
// thread's generator seeds itself again there (a snapshot process must not
// repeat its parent's sequence, nor two snapshots each other's).
std::atomic<uint64_t> forks{1};
[[maybe_unused]] const int kCountForks =
    ::pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1); });

// The calling thread's generator outside a scope, seeded from the kernel
// once per thread and process.
std::mt19937_64& ThreadGenerator() {
  thread_local std::mt19937_64 generator;
  thread_local uint64_t seeded_at = 0;
  const uint64_t now = forks.load(std::memory_order_relaxed);
  if (seeded_at != now) {
    uint64_t seed = 0;
    KernelBytes(reinterpret_cast<uint8_t*>(&seed), sizeof seed);
    generator.seed(seed);
    seeded_at = now;
  }
  return generator;
}

}  // namespace

uint64_t NewSeed() { return ThreadGenerator()(); }

uint64_t ReplayScope::Draw() {
  // splitmix64: seeding it is one store, which a statement does at every
  // run (a Mersenne Twister's 2.5 KB of state cost 1% of a TPC-C block).
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Next() { return replay != nullptr ? replay->Draw() : ThreadGenerator()(); }

void Fill(uint8_t* out, size_t n) {
  if (replay == nullptr) {
    KernelBytes(out, n);
    return;
  }
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t bits = replay->Draw();
    std::memcpy(out + i, &bits, n - i < 8 ? n - i : 8);
  }
}

ReplayScope::ReplayScope(uint64_t seed) : state_(seed), previous_(replay) { replay = this; }

ReplayScope::~ReplayScope() { replay = previous_; }

}  // namespace forktail::random_source
