// A fresh directory for a benchmark's database: under $FORKTAIL_BENCH_DIR
// (default: the working directory), named after `prefix`. The benchmark
// removes it.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <string>

namespace forktail {

inline std::string MakeBenchDir(const std::string& prefix) {
  const char* base = std::getenv("FORKTAIL_BENCH_DIR");
  std::string tmpl = std::string(base ? base : ".") + "/" + prefix + "_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

}  // namespace forktail
