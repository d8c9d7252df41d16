#include <fmt/format.h>

#include "tools/commands.h"

namespace forktail::tools {

void RegisterDemoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "create a database, load a generated table, scan it");
  static std::string data_dir = "./data";
  cmd->add_option("--data", data_dir, "data directory")->capture_default_str();
  cmd->callback([] { fmt::print("demo: not built yet ({})\n", data_dir); });
}

}  // namespace forktail::tools
