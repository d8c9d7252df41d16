// `forktail tier inspect DIR` and `forktail tier verify DIR`: command-line
// parsing only; the logic lives in tiering/tier_tool.cc (tested there).
#include <iostream>
#include <memory>
#include <string>

#include "tiering/tiering.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

struct TierArgs {
  std::string dir;
  std::string tier_dir;
  bool slots = false;
};

}  // namespace

void RegisterTierCommand(CLI::App& app) {
  auto args = std::make_shared<TierArgs>();
  CLI::App* tier =
      app.add_subcommand("tier", "Inspect and verify the SSD tier of a data directory");
  tier->require_subcommand(1);

  CLI::App* inspect = tier->add_subcommand(
      "inspect", "Summary of the slot table (slots valid and empty, bytes, temperatures)");
  inspect->add_option("DIR", args->dir, "Data directory")->required();
  inspect->add_option("--tier-dir", args->tier_dir,
                      "The tier's directory when serve had --ssd-tier-dir (default DIR/tier)");
  inspect->add_flag("--slots", args->slots, "Also one line per valid slot");
  inspect->footer("Exit code: 0 clean, 1 torn slot records (harmless), 3 no tier or I/O error.\n");
  inspect->callback([args] {
    ExitCode() = tier::TierInspect(args->dir, args->tier_dir, args->slots, std::cout, std::cerr);
  });

  CLI::App* verify = tier->add_subcommand(
      "verify", "Read every valid slot; check it against its checksum and the cold store's image");
  verify->add_option("DIR", args->dir, "Data directory (the cold store is DIR/cold)")->required();
  verify->add_option("--tier-dir", args->tier_dir,
                     "The tier's directory when serve had --ssd-tier-dir (default DIR/tier)");
  verify->footer(
      "Exit code: 0 every valid slot intact (stale versions, which the next open drops, are\n"
      "listed), 1 also torn slot records (harmless: they read as empty), 2 a valid slot whose\n"
      "bytes fail its checksum or differ from the cold store, 3 no tier, usage or I/O error.\n");
  verify->callback(
      [args] { ExitCode() = tier::TierVerify(args->dir, args->tier_dir, std::cout, std::cerr); });
}

}  // namespace forktail::tools
