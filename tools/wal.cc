// `forktail wal dump DIR` and `forktail wal verify DIR`: command-line parsing
// only; the logic lives in recovery/wal/wal_tool.cc (tested there).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "recovery/recovery.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

struct WalArgs {
  std::string dir;
  std::string from = "0";
};

// Parses a hex LSN as `wal dump` prints it (an optional 0x prefix is accepted).
bool ParseLsn(const std::string& text, wal::Lsn* lsn) {
  if (text.empty()) return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 16);
  if (*end != '\0') return false;
  *lsn = v;
  return true;
}

}  // namespace

void RegisterWalCommand(CLI::App& app) {
  auto args = std::make_shared<WalArgs>();
  CLI::App* wal = app.add_subcommand("wal", "Inspect the write-ahead log of a data directory");
  wal->require_subcommand(1);

  CLI::App* dump = wal->add_subcommand(
      "dump", "Print one line per WAL record (LSN, type, txn, length, payload preview)");
  dump->add_option("DIR", args->dir, "Data directory (the log is in DIR/wal/)")->required();
  dump->add_option("--from", args->from, "First LSN to print, hex as printed (default 0)");
  dump->footer("Exit code: 0 clean, 1 torn tail, 2 corruption, 3 usage or I/O error.\n");
  dump->callback([args] {
    wal::Lsn from = 0;
    if (!ParseLsn(args->from, &from)) {
      std::cerr << "error: --from \"" << args->from << "\" is not a hexadecimal LSN\n";
      ExitCode() = wal::kToolUsageError;
      return;
    }
    ExitCode() = wal::WalDump(wal::PosixLogFileSystem(), args->dir, from, std::cout, std::cerr);
  });

  CLI::App* verify = wal->add_subcommand(
      "verify", "Check every CRC, LSN continuity and the segment sequence; print a verdict");
  verify->add_option("DIR", args->dir, "Data directory (the log is in DIR/wal/)")->required();
  verify->footer(
      "Exit code: 0 clean, 1 torn tail only (recoverable, recovery would cut it),\n"
      "2 corruption, 3 usage or I/O error.\n");
  verify->callback([args] {
    ExitCode() = wal::WalVerify(wal::PosixLogFileSystem(), args->dir, std::cout, std::cerr);
  });
}

}  // namespace forktail::tools
