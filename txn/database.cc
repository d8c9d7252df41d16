// Database: opening and recovery, procedures, checkpoints
// (include/forktail/database.h).
#include "forktail/database.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

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
    : dir_(std::move(dir)), options_(options) {}

std::unique_ptr<Database> Database::Open(const std::string& dir, const DatabaseOptions& options) {
  std::unique_ptr<Database> db(new Database(dir, options));
  db->OpenAndRecover();
  return db;
}

void Database::OpenAndRecover() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    throw DbError(sqlstate::kIoError,
                  fmt::format("could not create data directory \"{}\": {}", dir_, ec.message()));
  }
  Status s = ckpt::ColdStore::Open(redo::ColdStoreDir(dir_), false, &cold_store_);
  if (!s.ok()) ThrowStatus("could not open the cold store", s);
  s = redo::RecoverDatabase(dir_, options_.wal_file_system, cold_store_.get(), &catalog_,
                            /*check_only=*/false, &report_);
  if (!s.ok()) ThrowStatus(fmt::format("recovery of \"{}\" failed", dir_), s);
  if (report_.has_checkpoint) {
    last_manifest_ = std::make_unique<ckpt::Manifest>(report_.checkpoint);
  }
  wal::LogWriterOptions lo;
  lo.file_system = options_.wal_file_system;
  lo.segment_size = options_.wal_segment_size;
  lo.synchronous = options_.synchronous_commit;
  lo.async_flush_interval = options_.async_flush_interval;
  lo.async_max_unsynced_bytes = options_.async_max_unsynced_bytes;
  s = wal::LogWriter::Open(dir_, lo, &log_);
  if (!s.ok()) ThrowStatus("could not open the write-ahead log", s);
  if (report_.has_checkpoint && log_->stats().next_lsn < report_.checkpoint.lsn) {
    throw DbError(sqlstate::kDataCorrupted,
                  fmt::format("the write-ahead log ends at LSN {}, before the checkpoint's "
                              "LSN {}: log segments are missing",
                              log_->stats().next_lsn, report_.checkpoint.lsn));
  }
  engine_ = std::make_unique<TxnEngine>(
      &catalog_, log_.get(), TxnEngineOptions{options_.synchronous_commit}, report_.next_txn);
}

Database::~Database() { Close(); }

void Database::Close() {
  if (closed_) return;
  closed_ = true;
  if (engine_) engine_->Stop();
  if (log_) log_->Close().PermitUnchecked();  // a sticky error was already reported
}

void Database::RegisterErased(const std::string& name, Procedure procedure) {
  std::unique_lock<std::shared_mutex> l(procedures_mu_);
  procedures_[name] = std::move(procedure);
}

Procedure Database::Lookup(std::string_view name) const {
  std::shared_lock<std::shared_mutex> l(procedures_mu_);
  auto it = procedures_.find(name);
  if (it == procedures_.end()) return nullptr;
  return it->second;
}

void Database::ExecuteAsync(std::string_view name, std::vector<Value> args, TxnCallback done) {
  Procedure p = Lookup(name);
  if (!p) {
    done(
        TxnResult::Error(kUndefinedFunction, fmt::format("procedure \"{}\" does not exist", name)));
    return;
  }
  engine_->Submit([p = std::move(p), args = std::move(args)](Transaction& txn) { p(txn, args); },
                  std::move(done));
}

std::future<TxnResult> Database::ExecuteAsync(std::string_view name, std::vector<Value> args) {
  auto promise = std::make_shared<std::promise<TxnResult>>();
  std::future<TxnResult> f = promise->get_future();
  ExecuteAsync(name, std::move(args), [promise](TxnResult r) { promise->set_value(std::move(r)); });
  return f;
}

TxnResult Database::Execute(std::string_view name, std::vector<Value> args) {
  return ExecuteAsync(name, std::move(args)).get();
}

void Database::RunBetweenTransactions(std::function<void(wal::Lsn)> fn) {
  engine_->RunBetweenTransactions(std::move(fn));
}

wal::Lsn Database::last_commit_lsn() const { return engine_->last_commit_lsn(); }

uint64_t Database::committed_count() const { return engine_->committed(); }

TxnResult Database::Run(TxnBody body) { return RunAsync(std::move(body)).get(); }

std::future<TxnResult> Database::RunAsync(TxnBody body) { return engine_->Submit(std::move(body)); }

Status Database::health() const { return log_->health(); }

wal::LogWriterStats Database::log_stats() const { return log_->stats(); }

CheckpointResult Database::Checkpoint() {
  CheckpointResult result;
  engine_->RunExclusive([&] { result = CheckpointOnTxnThread(); });
  return result;
}

CheckpointResult Database::CheckpointOnTxnThread() {
  auto t0 = std::chrono::steady_clock::now();
  // Everything appended so far becomes durable first: the log must never
  // restart below the checkpoint's LSN.
  Status s = log_->Flush();
  if (!s.ok()) ThrowStatus("could not checkpoint", s);
  wal::Lsn lsn = log_->stats().next_lsn;
  ckpt::CheckpointPlan plan =
      ckpt::CollectCheckpoint(catalog_, lsn, engine_->next_txn_id(), last_manifest_.get());
  ckpt::CheckpointStats stats;
  s = ckpt::WriteCheckpoint(plan, cold_store_.get(), &stats);
  if (!s.ok()) ThrowStatus("could not write the checkpoint", s);
  ckpt::MarkWritten(plan);
  int removed = 0;
  s = wal::RemoveSegmentsBefore(
      options_.wal_file_system ? options_.wal_file_system : wal::PosixLogFileSystem(), dir_, lsn,
      &removed);
  if (!s.ok()) ThrowStatus("could not remove old log segments after a checkpoint", s);
  CheckpointResult r;
  r.sequence = plan.manifest.sequence;
  r.lsn = lsn;
  r.blocks_written = stats.blocks_written;
  r.blocks_total = stats.blocks_total;
  r.images_deleted = stats.images_deleted;
  r.segments_removed = removed;
  plan.manifest.catalog.clear();
  last_manifest_ = std::make_unique<ckpt::Manifest>(std::move(plan.manifest));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace forktail
