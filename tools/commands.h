// The `forktail` command's subcommands. Each Register* adds one subcommand (and
// its --help) to the CLI11 app; the callback runs it and sets the exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace forktail::tools {

// Exit code of the subcommand that ran; set by its callback.
int& ExitCode();

void RegisterDemoCommand(CLI::App& app);
void RegisterWalCommand(CLI::App& app);        // wal dump | wal verify
void RegisterRecoverCommand(CLI::App& app);    // recover DIR [--check]
void RegisterSqlCommand(CLI::App& app);        // sql --data DIR [-c SQL] [-f FILE]
void RegisterSnapshotsCommand(CLI::App& app);  // snapshots --data DIR
void RegisterTierCommand(CLI::App& app);       // tier inspect | tier verify
void RegisterServeCommand(CLI::App& app);      // serve [--data DIR] [--port N] ...

}  // namespace forktail::tools
