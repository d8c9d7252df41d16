// Database: opening and recovery, procedures (include/forktail/database.h).
// Checkpoints: database_checkpoint.cc.
#include "forktail/database.h"

#include <fmt/format.h>

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
  // Every recovered commit record starts before the log's end, every new one
  // at or after it: the end - 1 orders correctly against both.
  if (log_->stats().next_lsn > 0) recovered_lsn_ = log_->stats().next_lsn - 1;
  // A checkpoint interrupted by a crash may have left its image file behind.
  std::filesystem::remove_all(StagingDir(), ec);
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
  // Until the first new commit the engine knows no LSN; the recovered log's
  // last position is the right one then (see last_commit_lsn()).
  engine_->RunBetweenTransactions([this, fn = std::move(fn)](wal::Lsn lsn) {
    fn(lsn == wal::kInvalidLsn ? recovered_lsn_ : lsn);
  });
}

wal::Lsn Database::last_commit_lsn() const {
  wal::Lsn lsn = engine_->last_commit_lsn();
  return lsn == wal::kInvalidLsn ? recovered_lsn_ : lsn;
}

void Database::SetForkFunction(std::function<pid_t()> fork) {
  engine_->RunExclusive([&] { fork_ = std::move(fork); });
}

uint64_t Database::committed_count() const { return engine_->committed(); }

TxnEngine::ThreadTime Database::txn_thread_time() const { return engine_->thread_time(); }

std::shared_ptr<const Catalog> Database::schemas() const { return engine_->schemas(); }

TxnResult Database::Run(TxnBody body) { return RunAsync(std::move(body)).get(); }

std::future<TxnResult> Database::RunAsync(TxnBody body) { return engine_->Submit(std::move(body)); }

Status Database::health() const { return log_->health(); }

bool Database::log_failed() const { return log_->failed(); }

Status Database::WaitDurable(wal::Lsn lsn) {
  // Everything recovered at Open is durable; so is "nothing".
  if (lsn == wal::kInvalidLsn || (recovered_lsn_ != wal::kInvalidLsn && lsn <= recovered_lsn_)) {
    return log_->health();
  }
  return log_->WaitDurable(lsn);
}

wal::LogWriterStats Database::log_stats() const { return log_->stats(); }

}  // namespace forktail
