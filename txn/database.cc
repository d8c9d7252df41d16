// Database: opening and recovery, procedures (include/forktail/database.h).
// Checkpoints: database_checkpoint.cc.
#include "forktail/database.h"
#include "txn/database_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <future>

namespace forktail {
namespace {

[[noreturn]] void ThrowStatus(const std::string& what, const Status& s) {
  throw DbError(s.code() == Status::Code::kCorruption ? sqlstate::kDataCorrupted
                : s.code() == Status::Code::kNoSpace  ? sqlstate::kDiskFull
                                                      : sqlstate::kIoError,
                what + ": " + s.message());
}

}  // namespace

Database::Database(std::string dir, const DatabaseOptions& options)
    : impl_(std::make_unique<Impl>(std::move(dir), options)) {}

std::unique_ptr<Database> Database::Open(const std::string& dir, const DatabaseOptions& options) {
  std::unique_ptr<Database> db(new Database(dir, options));
  db->OpenAndRecover();
  return db;
}

void Database::OpenAndRecover() {
  std::error_code ec;
  std::filesystem::create_directories(impl_->dir, ec);
  if (ec) {
    throw DbError(sqlstate::kIoError, fmt::format("could not create data directory \"{}\": {}",
                                                  impl_->dir, ec.message()));
  }
  PlaceColdStore();
  Status s = ckpt::ColdStore::Open(redo::ColdStoreDir(impl_->dir), false, &impl_->cold_store);
  // s names the cold store's directory and the cause ("No space left on device").
  if (!s.ok()) ThrowStatus(fmt::format("could not open data directory \"{}\"", impl_->dir), s);
  std::unique_ptr<tier::TieredImageSource> images = OpenTier();
  OpenPool();
  s = redo::RecoverDatabase(impl_->dir, impl_->options.wal_file_system, impl_->cold_store.get(),
                            images.get(), &impl_->catalog,
                            /*check_only=*/false, &impl_->report);
  if (!s.ok()) ThrowStatus(fmt::format("recovery of \"{}\" failed", impl_->dir), s);
  if (images) {
    TierReport& t = impl_->tier_report;
    t.blocks_from_tier = images->from_tier();
    t.blocks_from_cold = images->from_cold();
    t.dropped_stale = images->dropped_stale();
    if (!images->tier_error().ok()) {
      t.error = images->tier_error().ToString();
      if (impl_->pool) impl_->pool->DropSsdTier();
      impl_->failed_ssd_tier = std::move(impl_->ssd_tier);
    }
  }
  if (impl_->report.has_checkpoint) {
    impl_->last_manifest = std::make_unique<ckpt::Manifest>(impl_->report.checkpoint);
    impl_->checkpoint_lsn = impl_->last_manifest->lsn;
    if (impl_->pool) impl_->pool->SetDurable(*impl_->last_manifest);
  }
  wal::LogWriterOptions lo;
  lo.file_system = impl_->options.wal_file_system;
  lo.segment_size = impl_->options.wal_segment_size;
  lo.synchronous = impl_->options.synchronous_commit;
  lo.async_flush_interval = impl_->options.async_flush_interval;
  lo.async_max_unsynced_bytes = impl_->options.async_max_unsynced_bytes;
  s = wal::LogWriter::Open(impl_->dir, lo, &impl_->log);
  if (!s.ok()) ThrowStatus("could not open the write-ahead log", s);
  if (impl_->report.has_checkpoint && impl_->log->stats().next_lsn < impl_->report.checkpoint.lsn) {
    throw DbError(sqlstate::kDataCorrupted,
                  fmt::format("the write-ahead log ends at LSN {}, before the checkpoint's "
                              "LSN {}: log segments are missing",
                              impl_->log->stats().next_lsn, impl_->report.checkpoint.lsn));
  }
  // Every recovered commit record starts before the log's end, every new one
  // at or after it: the end - 1 orders correctly against both.
  if (impl_->log->stats().next_lsn > 0) impl_->recovered_lsn = impl_->log->stats().next_lsn - 1;
  // A checkpoint interrupted by a crash may have left its image file behind.
  std::filesystem::remove_all(StagingDir(), ec);
  impl_->engine = std::make_unique<TxnEngine>(&impl_->catalog, impl_->log.get(),
                                              TxnEngineOptions{impl_->options.synchronous_commit},
                                              impl_->report.next_txn);
  MigrateIdentityColumns();
  StartPoolThread();
}

std::unique_ptr<tier::TieredImageSource> Database::OpenTier() {
  if (impl_->options.ssd_tier_slots == 0) return nullptr;
  TierReport& t = impl_->tier_report;
  t.enabled = true;
  t.dir =
      impl_->options.ssd_tier_dir.empty() ? tier::TierDir(impl_->dir) : impl_->options.ssd_tier_dir;
  tier::SsdTierOptions options;
  options.slots = impl_->options.ssd_tier_slots;
  Status s = tier::SsdTier::Open(t.dir, options, &impl_->ssd_tier);
  if (!s.ok()) {
    // A cache that cannot open is bypassed: the cold store has every image.
    t.error = s.ToString();
    impl_->ssd_tier.reset();
    return std::make_unique<tier::TieredImageSource>(impl_->cold_store.get(), nullptr);
  }
  t.slots = impl_->ssd_tier->slot_count();
  t.valid_at_open = impl_->ssd_tier->valid_count();
  t.direct_io = impl_->ssd_tier->direct();
  t.io_uring = impl_->ssd_tier->uring();
  return std::make_unique<tier::TieredImageSource>(impl_->cold_store.get(), impl_->ssd_tier.get());
}

const TierReport& Database::tier_report() const { return impl_->tier_report; }

void Database::PlaceColdStore() {
  const std::string& want = impl_->options.cold_dir;
  if (want.empty()) return;  // DATA_DIR/cold, a directory or a link made before
  namespace fs = std::filesystem;
  const fs::path link = redo::ColdStoreDir(impl_->dir);
  std::error_code ec;
  auto fail = [&](const std::string& why) {
    throw DbError(
        sqlstate::kIoError,
        fmt::format("cannot place the cold store of \"{}\" in \"{}\": {}", impl_->dir, want, why));
  };
  const fs::file_status st = fs::symlink_status(link, ec);
  if (fs::exists(st)) {
    const fs::path now = fs::canonical(link, ec);
    std::error_code asked_ec;
    const fs::path asked = fs::weakly_canonical(want, asked_ec);
    if (!ec && !asked_ec && now == asked) return;
    fail(fmt::format("the data directory's cold store is already at \"{}\"",
                     ec ? link.string() : now.string()));
  }
  fs::create_directories(want, ec);
  if (ec) fail(ec.message());
  const fs::path target = fs::canonical(want, ec);
  if (ec) fail(ec.message());
  fs::create_directory_symlink(target, link, ec);
  if (ec) fail(ec.message());
}

Database::~Database() { Close(); }

void Database::Close() {
  if (impl_->closed) return;
  impl_->closed = true;
  if (impl_->pool_thread.joinable()) {
    {
      std::lock_guard<std::mutex> l(impl_->pool_mu);
      impl_->pool_stop = true;
    }
    impl_->pool_cv.notify_all();
    impl_->pool_thread.join();
  }
  impl_->block_server.reset();  // ends snapshot processes' connections
  if (impl_->engine) impl_->engine->Stop();
  // Temperatures are hints: a failure to keep them loses nothing.
  if (impl_->ssd_tier) impl_->ssd_tier->PersistTemperatures().PermitUnchecked();
  if (impl_->log) impl_->log->Close().PermitUnchecked();  // a sticky error was already reported
}

void Database::RegisterErased(const std::string& name, Procedure procedure,
                              ProcedureSignature signature) {
  std::unique_lock<std::shared_mutex> l(impl_->procedures_mu);
  impl_->procedures[name] = {std::move(procedure), std::move(signature)};
}

std::optional<Database::RegisteredProcedure> Database::FindProcedure(std::string_view name) const {
  std::shared_lock<std::shared_mutex> l(impl_->procedures_mu);
  auto it = impl_->procedures.find(name);
  if (it == impl_->procedures.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Database::ProcedureNames() const {
  std::shared_lock<std::shared_mutex> l(impl_->procedures_mu);
  std::vector<std::string> names;
  for (const auto& [name, procedure] : impl_->procedures) names.push_back(name);
  return names;
}

void Database::ExecuteAsync(std::string_view name, std::vector<Value> args, TxnCallback done) {
  std::optional<RegisteredProcedure> found = FindProcedure(name);
  if (!found) {
    done(
        TxnResult::Error(kUndefinedFunction, fmt::format("procedure \"{}\" does not exist", name)));
    return;
  }
  impl_->engine->Submit(
      [p = std::move(found->body), args = std::move(args)](Transaction& txn) { p(txn, args); },
      std::move(done));
}

std::future<TxnResult> Database::ExecuteAsync(std::string_view name, std::vector<Value> args) {
  auto promise = std::make_shared<std::promise<TxnResult>>();
  std::future<TxnResult> f = promise->get_future();
  ExecuteAsync(name, std::move(args), [promise](TxnResult r) { promise->set_value(std::move(r)); });
  return f;
}

TxnResult Database::Execute(std::string_view name, std::vector<Value> args) {
  std::optional<RegisteredProcedure> found = FindProcedure(name);
  if (!found) {
    return TxnResult::Error(kUndefinedFunction,
                            fmt::format("procedure \"{}\" does not exist", name));
  }
  // The caller waits anyway: run on its thread (TxnEngine::Run).
  return impl_->engine->Run([&found, &args](Transaction& txn) { found->body(txn, args); });
}

void Database::RunBetweenTransactions(std::function<void(wal::Lsn)> fn) {
  // Until the first new commit the engine knows no LSN; the recovered log's
  // last position is the right one then (see last_commit_lsn()).
  impl_->engine->RunBetweenTransactions([this, fn = std::move(fn)](wal::Lsn lsn) {
    fn(lsn == wal::kInvalidLsn ? impl_->recovered_lsn : lsn);
  });
}

size_t Database::FreezeBlocks(FreezeScope scope) {
  // Each round copies at most this many blocks on the transaction thread
  // (~0.2 ms each), encodes them here (5-15 ms each), then installs those
  // that no write changed meanwhile: the thread never waits for an encoding.
  constexpr size_t kBlocksPerStep = 8;
  struct Encoded {
    TableId table;
    BlockNo no;
    std::unique_ptr<Block> block;
  };
  FreezeOptions options;
  options.compress_strings = impl_->options.compress_frozen_strings;
  size_t frozen = 0;
  TableId table(0);              // the walk resumes at this table ...
  uint32_t cursor = 0;           // ... at this block
  std::vector<Encoded> encoded;  // the previous round's, installed by the next
  for (bool done = false; !done || !encoded.empty();) {
    std::promise<std::vector<Encoded>> step;
    std::future<std::vector<Encoded>> stepped = step.get_future();
    impl_->engine->RunBetweenTransactions([&](wal::Lsn) {
      const std::vector<TableId> tables = impl_->catalog.ListTables();
      for (Encoded& e : encoded) {
        // A table dropped since has no blocks to install into.
        if (!std::binary_search(tables.begin(), tables.end(), e.table)) continue;
        frozen += impl_->catalog.GetTable(e.table).InstallFrozen(e.no, std::move(e.block));
      }
      std::vector<Encoded> copies;
      for (TableId id : tables) {
        if (done || copies.size() == kBlocksPerStep) break;
        if (id.value() < table.value()) continue;
        if (id != table) cursor = 0;  // the table the walk stopped in is gone
        table = id;
        Table& t = impl_->catalog.GetTable(id);
        for (Table::FreezeCandidate& c : t.TakeFreezeCandidates(
                 scope == FreezeScope::kIdle, kBlocksPerStep - copies.size(), &cursor)) {
          copies.push_back({id, c.no, std::move(c.copy)});
        }
        if (cursor < t.block_count()) break;
        table = TableId(id.value() + 1);
        cursor = 0;
      }
      if (copies.size() < kBlocksPerStep) done = true;
      step.set_value(std::move(copies));
    });
    encoded = stepped.get();
    for (Encoded& e : encoded) e.block = Block::Freeze(*e.block, options);
  }
  return frozen;
}

wal::Lsn Database::checkpoint_lsn() const { return impl_->checkpoint_lsn; }

wal::Lsn Database::last_commit_lsn() const {
  wal::Lsn lsn = impl_->engine->last_commit_lsn();
  return lsn == wal::kInvalidLsn ? impl_->recovered_lsn : lsn;
}

void Database::SetForkFunction(std::function<pid_t()> fork) {
  impl_->engine->RunExclusive([&] { impl_->fork = std::move(fork); });
}

uint64_t Database::committed_count() const { return impl_->engine->committed(); }

TxnThreadTime Database::txn_thread_time() const { return impl_->engine->thread_time(); }

std::shared_ptr<const Catalog> Database::schemas() const { return impl_->engine->schemas(); }

TxnResult Database::Run(TxnBody body) { return impl_->engine->Run(std::move(body)); }

std::future<TxnResult> Database::RunAsync(TxnBody body) {
  return impl_->engine->Submit(std::move(body));
}

Status Database::health() const { return impl_->log->health(); }

bool Database::log_failed() const { return impl_->log->failed(); }

Status Database::WaitDurable(wal::Lsn lsn) {
  // Everything recovered at Open is durable; so is "nothing".
  if (lsn == wal::kInvalidLsn ||
      (impl_->recovered_lsn != wal::kInvalidLsn && lsn <= impl_->recovered_lsn)) {
    return impl_->log->health();
  }
  return impl_->log->WaitDurable(lsn);
}

wal::LogWriterStats Database::log_stats() const { return impl_->log->stats(); }

const Catalog& Database::frozen_catalog() const { return impl_->catalog; }

const redo::RecoveryReport& Database::recovery_report() const { return impl_->report; }

const std::string& Database::dir() const { return impl_->dir; }

}  // namespace forktail
