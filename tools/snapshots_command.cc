// `forktail snapshots --data DIR`: the live snapshot processes of the server
// running on DIR (LSN, age, pid, running queries, copied and shared memory),
// read from its control socket DIR/forktail.ctl (snapshot/snapshot_control.h).
// Exit codes: 0 listed, 1 no server answers on DIR, 3 usage error.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "snapshot/snapshot_control.h"
#include "tools/commands.h"

namespace forktail::tools {

void RegisterSnapshotsCommand(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "snapshots", "List the live snapshot processes of a running `forktail serve`");
  cmd->add_option("--data", *dir, "Data directory of the running server")->required();
  cmd->footer(
      "Columns: id, pid, lsn (the snapshot sees every commit up to it), age_ms, running "
      "(requests), state (live = gets new queries, retired = drains), fork_ms, copied_kib "
      "(pages only this snapshot still holds: what killing it frees), shared_kib.\n"
      "Exit code: 0 ok, 1 no server answers on the directory, 3 usage error.\n");
  cmd->callback([dir] {
    if (!std::filesystem::is_directory(*dir)) {
      std::cerr << "error: data directory \"" << *dir << "\" does not exist\n";
      ExitCode() = 3;
      return;
    }
    std::string answer;
    Status s = QuerySnapshotControl(*dir, "snapshots", &answer);
    if (!s.ok()) {
      std::cerr << "error: no server is running on \"" << *dir << "\" (" << s.message() << ")\n";
      ExitCode() = 1;
      return;
    }
    std::cout << answer;
    ExitCode() = answer.starts_with("error:") ? 1 : 0;
  });
}

}  // namespace forktail::tools
