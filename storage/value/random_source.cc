#include "storage/value/random_source.h"

#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

// The calling thread's generator outside a scope, seeded again in a forked
// process: a snapshot process must not repeat its parent's sequence, nor
// two snapshots each other's.
std::mt19937_64& ThreadGenerator() {
  thread_local std::mt19937_64 generator;
  thread_local pid_t seeded_in = 0;
  const pid_t pid = ::getpid();
  if (seeded_in != pid) {
    generator.seed(NewSeed());
    seeded_in = pid;
  }
  return generator;
}

}  // namespace

uint64_t NewSeed() {
  uint64_t seed = 0;
  KernelBytes(reinterpret_cast<uint8_t*>(&seed), sizeof seed);
  return seed;
}

uint64_t Next() { return replay != nullptr ? replay->generator_() : ThreadGenerator()(); }

void Fill(uint8_t* out, size_t n) {
  if (replay == nullptr) {
    KernelBytes(out, n);
    return;
  }
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t bits = replay->generator_();
    std::memcpy(out + i, &bits, n - i < 8 ? n - i : 8);
  }
}

ReplayScope::ReplayScope(uint64_t seed) : generator_(seed), previous_(replay) { replay = this; }

ReplayScope::~ReplayScope() { replay = previous_; }

}  // namespace forktail::random_source
