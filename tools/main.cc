#include <cstdio>

#include "tools/commands.h"

namespace forktail::tools {
int& ExitCode() {
  static int code = 0;
  return code;
}
}  // namespace forktail::tools

int main(int argc, char** argv) {
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
