// `forktail recover DIR [--check] [--checkpoint]`: restart recovery of a data
// directory (recovery/replay_driver.h) from the command line.
//   --check       what recovery would do - the checkpoint it would use, the
//                 records it would replay, the torn tail it would cut -
//                 computed in memory; no file is changed.
//   (no flag)     runs it: loads the checkpoint, replays the log, cuts a torn
//                 tail, then closes the database cleanly.
//   --checkpoint  after recovering, takes a checkpoint (so the replayed log
//                 can be dropped).
// Exit codes: 0 recovered / would recover, 2 corruption (the message names the
// segment and offset), 3 usage or I/O error.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "forktail/database.h"
#include "recovery/replay_driver.h"
#include "tiering/tiering.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

struct RecoverArgs {
  std::string dir;
  bool check = false;
  bool checkpoint = false;
};

int RunCheck(const std::string& dir) {
  std::unique_ptr<ckpt::ColdStore> store;
  Status s = ckpt::ColdStore::Open(redo::ColdStoreDir(dir), /*read_only=*/true, &store);
  if (!s.ok() && s.code() != Status::Code::kNotFound) {
    std::cerr << "error: " << s.message() << "\n";
    return s.code() == Status::Code::kCorruption ? 2 : 3;
  }
  // With an SSD tier (DIR/tier), the check reads through it, read-only.
  std::unique_ptr<tier::SsdTier> ssd;
  std::unique_ptr<tier::TieredImageSource> images;
  if (store != nullptr) {
    tier::SsdTierOptions options;
    options.writable = false;
    Status t = tier::SsdTier::Open(tier::TierDir(dir), options, &ssd);
    if (t.ok()) {
      images = std::make_unique<tier::TieredImageSource>(store.get(), ssd.get());
    } else if (t.code() != Status::Code::kNotFound) {
      std::cout << "SSD tier: unusable, recovery would bypass it: " << t.ToString() << "\n";
    }
  }
  Catalog scratch;
  redo::RecoveryReport report;
  s = redo::RecoverDatabase(dir, nullptr, store.get(), images.get(), &scratch,
                            /*check_only=*/true, &report);
  if (!s.ok()) {
    std::cerr << "error: recovery would fail: " << s.message() << "\n";
    return s.code() == Status::Code::kCorruption ? 2 : 3;
  }
  std::cout << "recovery check of " << dir << " (nothing changed)\n" << report.ToString();
  if (images != nullptr) {
    const tier::TierStats st = ssd->stats();
    std::cout << "SSD tier " << tier::TierDir(dir) << ": " << ssd->slot_count() << " slots; "
              << images->from_tier() << " blocks from it, " << images->from_cold()
              << " from the cold store; " << images->dropped_stale() << " stale slots, "
              << st.dropped_corrupt << " slots failing their checksum (not used)\n";
  }
  std::cout << "tables after recovery: " << scratch.size() << "\n";
  return 0;
}

int RunRecover(const RecoverArgs& args) {
  try {
    auto db = Database::Open(args.dir);
    std::cout << "recovered " << args.dir << "\n" << db->recovery_report().ToString();
    if (args.checkpoint) {
      CheckpointResult c = db->Checkpoint();
      std::cout << "checkpoint #" << c.sequence << " at LSN " << c.lsn << ": " << c.blocks_written
                << " of " << c.blocks_total << " blocks written, " << c.segments_removed
                << " log segment(s) removed\n";
    }
    db->Close();
  } catch (const DbError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return std::string(e.sqlstate()) == sqlstate::kDataCorrupted ? 2 : 3;
  }
  return 0;
}

}  // namespace

void RegisterRecoverCommand(CLI::App& app) {
  auto args = std::make_shared<RecoverArgs>();
  CLI::App* cmd = app.add_subcommand(
      "recover", "Recover a data directory: newest checkpoint + replay of the log after it");
  cmd->add_option("DIR", args->dir, "Data directory (wal/ and cold/ inside)")->required();
  cmd->add_flag("--check", args->check,
                "Only report what recovery would do (checkpoint, records to replay, tail to "
                "cut); change nothing");
  cmd->add_flag("--checkpoint", args->checkpoint, "Take a checkpoint after recovering");
  cmd->footer(
      "Exit code: 0 ok, 2 corruption (names the segment and offset), 3 usage or I/O "
      "error.\n");
  cmd->callback([args] {
    if (!std::filesystem::is_directory(args->dir)) {
      std::cerr << "error: data directory \"" << args->dir << "\" does not exist\n";
      ExitCode() = 3;
      return;
    }
    if (args->check && args->checkpoint) {
      std::cerr << "error: --check and --checkpoint exclude each other\n";
      ExitCode() = 3;
      return;
    }
    ExitCode() = args->check ? RunCheck(args->dir) : RunRecover(*args);
  });
}

}  // namespace forktail::tools
