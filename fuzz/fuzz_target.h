// What every fuzz target shares: libFuzzer's entry point, and the rule for
// what a parser may do with bytes it does not accept.
//
// A parser of untrusted bytes must answer every input with a result or with
// the error PostgreSQL gives (a DbError carrying its SQLSTATE, or a Status
// for the WAL). Anything else is a bug the target turns into a crash that
// libFuzzer reports: a sanitizer error, an abort, an exception that is not a
// DbError (std::out_of_range from a stoi, std::length_error, bad_alloc), a
// DbError with XX000 (an internal error is a bug by definition), a hang
// (-timeout) or memory that grows past -rss_limit_mb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "storage/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace forktail::fuzz {

// A DbError is how bad input is answered; XX000 is not.
inline void CheckDbError(const DbError& e) {
  if (std::strcmp(e.sqlstate(), sqlstate::kInternalError) == 0) {
    std::fprintf(stderr, "internal error (XX000) for bad input: %s\n", e.what());
    std::abort();
  }
}

// Splits an input into a leading control byte (choices the target makes: a
// format, a type) and the bytes under test.
struct Input {
  uint8_t control = 0;
  std::string_view bytes;
};
inline Input SplitControl(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  return {data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

}  // namespace forktail::fuzz
