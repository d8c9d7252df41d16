#include "txn/txn_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace forktail {
namespace {
constexpr const char* kShutdownMessage = "terminating transaction because the database is closing";

TxnResult NotDurable(const Status& s) {
  return TxnResult::Error(
      sqlstate::kIoError,
      fmt::format("could not make the commit durable; the database refuses writes: {}",
                  s.message()));
}
}  // namespace

void TxnResult::ThrowIfError() const {
  if (ok) return;
  // DbError keeps a const char* SQLSTATE: map to the static constants by text.
  static const char* const kKnown[] = {sqlstate::kNotNullViolation,
                                       sqlstate::kUniqueViolation,
                                       sqlstate::kTransactionRollback,
                                       sqlstate::kUndefinedTable,
                                       sqlstate::kIoError,
                                       sqlstate::kAdminShutdown,
                                       sqlstate::kSyntaxError,
                                       sqlstate::kDatatypeMismatch,
                                       sqlstate::kUndefinedColumn,
                                       sqlstate::kDuplicateTable,
                                       sqlstate::kInvalidParameterValue};
  for (const char* code : kKnown) {
    if (sqlstate == code) throw DbError(code, message);
  }
  throw DbError(sqlstate::kInternalError, sqlstate + ": " + message);
}

TxnEngine::TxnEngine(Catalog* catalog, wal::LogWriter* log, TxnEngineOptions options,
                     wal::TxnId first_txn)
    : catalog_(catalog), log_(log), options_(options), next_txn_(first_txn) {
  schemas_ = catalog_->CopySchemas();
  schemas_version_ = catalog_->schema_version();
  thread_ = std::thread([this] { Loop(); });
}

TxnEngine::~TxnEngine() { Stop(); }

void TxnEngine::Submit(TxnBody body, TxnCallback done) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!stopping_) {
      queue_.push_back([this, body = std::move(body), done = std::move(done)]() mutable {
        Outcome outcome = ExecuteLoading(body);
        Acknowledge(std::move(outcome), done);
      });
      cv_.notify_one();
      return;
    }
  }
  done(TxnResult::Error(sqlstate::kAdminShutdown, kShutdownMessage));
}

std::future<TxnResult> TxnEngine::Submit(TxnBody body) {
  auto promise = std::make_shared<std::promise<TxnResult>>();
  std::future<TxnResult> f = promise->get_future();
  Submit(std::move(body), [promise](TxnResult r) { promise->set_value(std::move(r)); });
  return f;
}

TxnResult TxnEngine::Run(TxnBody body) {
  if (stopped_.load(std::memory_order_acquire)) {
    return TxnResult::Error(sqlstate::kAdminShutdown, kShutdownMessage);
  }
  Outcome outcome = ExecuteLoading(body);
  if (outcome.wait_lsn == wal::kInvalidLsn) return std::move(outcome.result);
  Status s = log_->WaitDurable(outcome.wait_lsn);
  if (!s.ok()) return NotDurable(s);
  return std::move(outcome.result);
}

void TxnEngine::RunExclusive(const std::function<void()>& fn) {
  std::promise<void> done;
  std::future<void> f = done.get_future();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) throw DbError(sqlstate::kAdminShutdown, kShutdownMessage);
    queue_.push_back([this, &fn, &done] {
      try {
        Exclusively(fn);
        done.set_value();
      } catch (...) {
        done.set_exception(std::current_exception());
      }
    });
    cv_.notify_one();
  }
  f.get();
}

void TxnEngine::RunBetweenTransactions(std::function<void(wal::Lsn)> fn) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!loop_exited_) {
      // Queued like a transaction: Loop() runs tasks one after another, so
      // this one starts only after the previous transaction has finished.
      queue_.push_back([this, fn = std::move(fn)] { Exclusively([&] { fn(last_commit_lsn_); }); });
      cv_.notify_one();
      return;
    }
  }
  // The transaction thread has exited (Stop): nothing mutates tables any more.
  fn(published_commit_lsn_.load(std::memory_order_acquire));
}

void TxnEngine::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    stopped_.store(true, std::memory_order_release);
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

uint64_t TxnEngine::committed() const { return committed_.load(std::memory_order_relaxed); }

uint64_t TxnEngine::aborted() const { return aborted_.load(std::memory_order_relaxed); }

TxnEngine::LoadStats TxnEngine::load_stats() const {
  return {load_restarts_.load(std::memory_order_relaxed),
          blocks_read_.load(std::memory_order_relaxed),
          inline_fallbacks_.load(std::memory_order_relaxed)};
}

TxnEngine::Outcome TxnEngine::ExecuteLoading(TxnBody& body) {
  std::vector<LoadedImage> loaded;
  size_t readahead = 1;
  for (int attempt = 0;; attempt++) {
    const bool inline_loads = attempt >= kMaxLoadAttempts;
    if (inline_loads) inline_fallbacks_.fetch_add(1, std::memory_order_relaxed);
    Outcome outcome;
    Exclusively([&] {
      InstallLoaded(&loaded);
      outcome = Execute(body, inline_loads ? LoadPolicy::kInline : LoadPolicy::kThrow, readahead);
    });
    if (outcome.missing.empty()) return outcome;
    load_restarts_.fetch_add(1, std::memory_order_relaxed);
    if (before_load_) before_load_();
    Status s = ReadMissing(outcome.missing, &loaded);
    if (!s.ok()) {
      return {TxnResult::Error(
          s.code() == Status::Code::kCorruption ? sqlstate::kDataCorrupted : sqlstate::kIoError,
          fmt::format("could not read a block of the database: {}", s.message()))};
    }
    // A body that misses again reads ahead more: a scan over evicted blocks
    // runs again O(log n) times, not n.
    readahead = std::min<size_t>(readahead * 2, 64);
  }
}

Status TxnEngine::ReadMissing(const std::vector<BlockNotResident>& missing,
                              std::vector<LoadedImage>* out) {
  BlockImageReader* reader = catalog_->block_image_reader();
  if (reader == nullptr) {
    return Status::IoError("a block is not in memory and there is no buffer pool to read it");
  }
  for (const BlockNotResident& m : missing) {
    LoadedImage loaded{m, {}};
    Status s = reader->ReadImage(m.table, m.block, m.version, &loaded.image);
    // Not found: the block changed since the body missed it (another body
    // read it back and wrote it, and a checkpoint replaced the image of the
    // version it had): the next attempt finds it in memory or at its new
    // version. Past kMaxLoadAttempts a load under the lock reports a real
    // loss.
    if (s.code() == Status::Code::kNotFound) continue;
    if (!s.ok()) return s;
    blocks_read_.fetch_add(1, std::memory_order_relaxed);
    out->push_back(std::move(loaded));
  }
  return Status::Ok();
}

void TxnEngine::InstallLoaded(std::vector<LoadedImage>* loaded) {
  for (LoadedImage& l : *loaded) {
    // The table may be gone (DROP), or the block changed and evicted again
    // at another version meanwhile: then the image is dropped, and the body
    // misses again if it still needs the block.
    Table* table = catalog_->FindTableById(l.block.table);
    if (table == nullptr || !table->directory().Contains(l.block.block)) continue;
    std::unique_ptr<Block> block;
    try {
      block = table->EvictedBlockOfImage(l.block.block, l.block.version, l.image);
    } catch (const DbError&) {
      continue;  // the body misses it again and reads it inline, which reports the error
    }
    table->directory().Install(l.block.block, std::move(block));
  }
  loaded->clear();
}

std::shared_ptr<const Catalog> TxnEngine::schemas() const {
  std::lock_guard<std::mutex> l(schemas_mu_);
  return schemas_;
}

void TxnEngine::PublishSchemasIfChanged() {
  if (catalog_->schema_version() == schemas_version_) return;
  std::shared_ptr<const Catalog> copy = catalog_->CopySchemas();
  schemas_version_ = catalog_->schema_version();
  std::lock_guard<std::mutex> l(schemas_mu_);
  schemas_ = std::move(copy);
}

void TxnEngine::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {  // stopping and drained
        loop_exited_ = true;
        return;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

template <typename Fn>
void TxnEngine::Exclusively(Fn&& fn) {
  std::lock_guard<std::mutex> l(exec_mu_);
  const auto start = std::chrono::steady_clock::now();
  struct Account {  // also when fn throws (RunExclusive rethrows to its caller)
    TxnEngine* engine;
    std::chrono::steady_clock::time_point start;
    ~Account() {
      engine->busy_ns_.fetch_add(
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now() - start)
                                    .count()),
          std::memory_order_relaxed);
    }
  } account{this, start};
  fn();
}

TxnEngine::ThreadTime TxnEngine::thread_time() const {
  ThreadTime t;
  t.busy_ns = busy_ns_.load(std::memory_order_relaxed);
  t.alive_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now() - started_)
                                         .count());
  return t;
}

std::vector<BlockNotResident> TxnEngine::Readahead(const BlockNotResident& first,
                                                   size_t count) const {
  std::vector<BlockNotResident> out{first};
  const Table* table = catalog_->FindTableById(first.table);
  if (table == nullptr) return out;
  const BlockDirectory& d = table->directory();
  for (uint32_t b = first.block.value() + 1; out.size() < count && b + 1 < d.size(); b++) {
    const BlockNo no(b);
    if (!d.resident(no)) out.push_back({first.table, no, d.version(no)});
  }
  return out;
}

TxnEngine::Outcome TxnEngine::Execute(TxnBody& body, LoadPolicy policy, size_t readahead) {
  if (log_->failed()) {
    Status health = log_->health();
    return {TxnResult::Error(
        sqlstate::kIoError,
        fmt::format("cannot execute transaction: the database refuses writes after a "
                    "write-ahead log failure: {}",
                    health.message()))};
  }
  BuildWantedKeyIndexes();
  Transaction txn(catalog_, next_txn_++);
  TxnResult failure;
  std::optional<BlockNotResident> missing;
  try {
    LoadPolicyScope loads(policy);
    body(txn);
  } catch (const BlockNotResident& m) {
    missing = m;
    failure = TxnResult::Error(sqlstate::kInternalError, "a block is not in memory");
  } catch (const DbError& e) {
    failure = TxnResult::Error(e.sqlstate(), e.what());
  } catch (const std::exception& e) {
    failure = TxnResult::Error(sqlstate::kInternalError, e.what());
  }
  if (!failure.ok) {
    txn.Rollback();
    if (!txn.kept_redo().empty()) {
      // Sequence values the failed transaction handed out stay used (as in
      // PostgreSQL): their states are logged as a transaction of their own.
      // Nobody waits for it; a later commit's durability covers it. A
      // failed append makes the log refuse everything after, which the next
      // transaction reports.
      std::vector<wal::RecordInput> records;
      for (const Transaction::Redo& r : txn.kept_redo()) {
        records.push_back({r.type, txn.id(), r.payload});
      }
      records.push_back({wal::RecordType::kCommit, txn.id(), {}});
      std::vector<wal::Lsn> lsns;
      log_->Append(records, &lsns).PermitUnchecked();
    }
    PublishSchemasIfChanged();
    if (missing) return {std::move(failure), wal::kInvalidLsn, Readahead(*missing, readahead)};
    aborted_.fetch_add(1, std::memory_order_relaxed);
    return {std::move(failure)};
  }
  TxnResult result;
  result.rows = std::move(txn.output());
  // The LSN this outcome waits for (synchronous mode), or, when the body
  // asked for AcknowledgeWhenApplied, hands to its submitter instead.
  auto outcome = [&](wal::Lsn wait_lsn) {
    if (!options_.synchronous) wait_lsn = wal::kInvalidLsn;
    if (wait_lsn != wal::kInvalidLsn && txn.acknowledge_when_applied()) {
      result.durable_lsn = wait_lsn;
      wait_lsn = wal::kInvalidLsn;
    }
    return Outcome{std::move(result), wait_lsn};
  };
  if (txn.discard_on_return()) {
    // A dry run (a step of a transaction block) reports at once: what it
    // read is a forecast that only the block's COMMIT makes true, and that
    // COMMIT is acknowledged after everything it read is durable (header,
    // "Dry runs").
    txn.Rollback();
    PublishSchemasIfChanged();
    return outcome(wal::kInvalidLsn);
  }
  if (txn.redo().empty()) {
    // A read-only transaction: acknowledged once what it may have read is
    // durable (a commit that never becomes durable must not be reported).
    txn.FinishCommit();
    PublishSchemasIfChanged();
    return outcome(last_commit_lsn_);
  }
  std::vector<wal::RecordInput> records;
  records.reserve(txn.redo().size() + 1);
  for (const Transaction::Redo& r : txn.redo()) records.push_back({r.type, txn.id(), r.payload});
  records.push_back({wal::RecordType::kCommit, txn.id(), {}});
  std::vector<wal::Lsn> lsns;
  Status s = log_->Append(records, &lsns);
  if (!s.ok()) {
    txn.Rollback();
    PublishSchemasIfChanged();
    aborted_.fetch_add(1, std::memory_order_relaxed);
    return {TxnResult::Error(sqlstate::kIoError,
                             fmt::format("could not write the commit record, transaction rolled "
                                         "back; the database refuses writes: {}",
                                         s.message()))};
  }
  txn.FinishCommit();
  PublishSchemasIfChanged();
  last_commit_lsn_ = lsns.back();
  published_commit_lsn_.store(last_commit_lsn_, std::memory_order_release);
  result.commit_lsn = lsns.back();
  committed_.fetch_add(1, std::memory_order_relaxed);
  return outcome(lsns.back());
}

void TxnEngine::BuildWantedKeyIndexes() {
  const uint64_t requests = Table::KeyIndexRequests();
  if (requests == key_index_requests_) return;
  key_index_requests_ = requests;
  for (TableId id : catalog_->ListTables()) {
    if (Table* table = catalog_->FindTableById(id)) table->BuildKeyIndexIfWanted();
  }
}

void TxnEngine::Acknowledge(Outcome outcome, TxnCallback& done) {
  if (outcome.wait_lsn == wal::kInvalidLsn) {
    done(std::move(outcome.result));
    return;
  }
  log_->OnDurable(outcome.wait_lsn, [result = std::move(outcome.result),
                                     done = std::move(done)](const Status& s) mutable {
    if (s.ok()) {
      done(std::move(result));
    } else {
      done(NotDurable(s));
    }
  });
}

}  // namespace forktail
