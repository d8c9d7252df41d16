#include "txn/txn_engine.h"

#include <fmt/format.h>

namespace forktail {
namespace {
constexpr const char* kShutdownMessage = "terminating transaction because the database is closing";
}

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
        Execute(body, done);
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

void TxnEngine::RunExclusive(const std::function<void()>& fn) {
  std::promise<void> done;
  std::future<void> f = done.get_future();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) throw DbError(sqlstate::kAdminShutdown, kShutdownMessage);
    queue_.push_back([&fn, &done] {
      try {
        fn();
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
      queue_.push_back([this, fn = std::move(fn)] { fn(last_commit_lsn_); });
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
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

uint64_t TxnEngine::committed() const {
  std::lock_guard<std::mutex> l(mu_);
  return committed_;
}

uint64_t TxnEngine::aborted() const {
  std::lock_guard<std::mutex> l(mu_);
  return aborted_;
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
    const auto start = std::chrono::steady_clock::now();
    task();
    busy_ns_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 std::chrono::steady_clock::now() - start)
                                                 .count()),
                       std::memory_order_relaxed);
  }
}

TxnEngine::ThreadTime TxnEngine::thread_time() const {
  ThreadTime t;
  t.busy_ns = busy_ns_.load(std::memory_order_relaxed);
  t.alive_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now() - started_)
                                         .count());
  return t;
}

void TxnEngine::Execute(TxnBody& body, TxnCallback& done) {
  Status health = log_->health();
  if (!health.ok()) {
    done(TxnResult::Error(
        sqlstate::kIoError,
        fmt::format("cannot execute transaction: the database refuses writes after a "
                    "write-ahead log failure: {}",
                    health.message())));
    return;
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
    PublishSchemasIfChanged();
    {
      std::lock_guard<std::mutex> l(mu_);
      aborted_++;
    }
    done(std::move(failure));
    return;
  }
  TxnResult result;
  result.rows = std::move(txn.output());
  if (txn.discard_on_return()) {
    txn.Rollback();
    PublishSchemasIfChanged();
    Acknowledge(std::move(result), last_commit_lsn_, txn.acknowledge_when_applied(), done);
    return;
  }
  if (txn.redo().empty()) {
    // Read-only: acknowledged once what it may have read is durable.
    txn.FinishCommit();
    PublishSchemasIfChanged();
    Acknowledge(std::move(result), last_commit_lsn_, txn.acknowledge_when_applied(), done);
    return;
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
    {
      std::lock_guard<std::mutex> l(mu_);
      aborted_++;
    }
    done(TxnResult::Error(sqlstate::kIoError,
                          fmt::format("could not write the commit record, transaction rolled "
                                      "back; the database refuses writes: {}",
                                      s.message())));
    return;
  }
  txn.FinishCommit();
  PublishSchemasIfChanged();
  last_commit_lsn_ = lsns.back();
  published_commit_lsn_.store(last_commit_lsn_, std::memory_order_release);
  result.commit_lsn = lsns.back();
  {
    std::lock_guard<std::mutex> l(mu_);
    committed_++;
  }
  Acknowledge(std::move(result), lsns.back(), txn.acknowledge_when_applied(), done);
}

void TxnEngine::Acknowledge(TxnResult result, wal::Lsn wait_lsn, bool applied, TxnCallback& done) {
  if (!options_.synchronous || wait_lsn == wal::kInvalidLsn) {
    done(std::move(result));
    return;
  }
  if (applied) {  // the submitter waits for durability itself
    result.durable_lsn = wait_lsn;
    done(std::move(result));
    return;
  }
  log_->OnDurable(
      wait_lsn, [result = std::move(result), done = std::move(done)](const Status& s) mutable {
        if (s.ok()) {
          done(std::move(result));
        } else {
          done(TxnResult::Error(sqlstate::kIoError,
                                fmt::format("could not make the commit durable; the database "
                                            "refuses writes: {}",
                                            s.message())));
        }
      });
}

}  // namespace forktail
