#include "txn/txn_engine.h"

#include <fmt/format.h>

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
        Outcome outcome;
        Exclusively([&] { outcome = Execute(body); });
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
  Outcome outcome;
  Exclusively([&] { outcome = Execute(body); });
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

TxnEngine::Outcome TxnEngine::Execute(TxnBody& body) {
  if (log_->failed()) {
    Status health = log_->health();
    return {TxnResult::Error(
        sqlstate::kIoError,
        fmt::format("cannot execute transaction: the database refuses writes after a "
                    "write-ahead log failure: {}",
                    health.message()))};
  }
  Transaction txn(catalog_, next_txn_++);
  TxnResult failure;
  try {
    body(txn);
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
