#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tools/commands.h"

namespace {

// glibc's per-thread cache keeps 7 freed chunks per size class by default. A
// statement frees more than that of several sizes (tokens, AST and plan
// nodes, expressions); the rest go to the fastbins, which the next
// allocation of 1 KiB or more consolidates: malloc_consolidate and
// unlink_chunk were ~8% of the server's time in an indexed range read
// (perf). 128 per class keeps them cached: +10-15% range reads and +3-7%
// pgbench -S in the same runs (bench/app_sql). The tunable is read at
// process start only, so `serve` executes itself again once with it set; a
// GLIBC_TUNABLES of the user's is kept (and one naming tcache_count wins).
void CacheFreedChunksPerThread(char** argv) {
#ifdef __GLIBC__
  constexpr const char* kTunable = "glibc.malloc.tcache_count";
  const char* current = std::getenv("GLIBC_TUNABLES");
  if (current != nullptr && std::strstr(current, kTunable) != nullptr) return;
  std::string value = current != nullptr && *current != '\0' ? std::string(current) + ":" : "";
  value += std::string(kTunable) + "=128";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only if it failed: go on as we are
#else
  (void)argv;
#endif
}

}  // namespace

namespace forktail::tools {
int& ExitCode() {
  static int code = 0;
  return code;
}
}  // namespace forktail::tools

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "serve") == 0) CacheFreedChunksPerThread(argv);
  CLI::App app{"forktail: a single-node HTAP database engine"};
  app.require_subcommand(1);
  forktail::tools::RegisterDemoCommand(app);
  forktail::tools::RegisterWalCommand(app);
  forktail::tools::RegisterRecoverCommand(app);
  forktail::tools::RegisterTierCommand(app);
  forktail::tools::RegisterSqlCommand(app);
  forktail::tools::RegisterSnapshotsCommand(app);
  forktail::tools::RegisterServeCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return forktail::tools::ExitCode();
}
