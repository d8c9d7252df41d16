// The server's client backends as the SQL layer sees them: the rows of
// pg_stat_activity and the targets of pg_cancel_backend /
// pg_terminate_backend. The wire server implements BackendDirectory; the
// binder reads it through BindOptions::session (system_catalog.h's
// CatalogSession), so nothing below the server knows about connections.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace forktail {

// A client backend as pg_stat_activity shows it. Times are microseconds
// since 1970-01-01 UTC (0: NULL).
struct BackendActivity {
  int32_t pid = 0;
  std::string user;
  std::string database;
  std::string application_name;
  std::string client_addr;  // empty: a Unix-domain socket (NULL)
  int32_t client_port = -1;
  int64_t backend_start = 0;
  int64_t xact_start = 0;
  int64_t query_start = 0;
  int64_t state_change = 0;
  // "active", "idle", "idle in transaction", "idle in transaction (aborted)";
  // empty before the first query (NULL).
  std::string state;
  std::string query;  // the running or last statement's text
};

// The server's client backends: what pg_stat_activity lists and
// pg_cancel_backend / pg_terminate_backend signal. The wire server
// implements it; every method is thread-safe and none waits for the
// transaction thread (a backend stuck there must stay visible and
// cancellable).
class BackendDirectory {
 public:
  virtual ~BackendDirectory() = default;
  virtual std::vector<BackendActivity> List() const = 0;
  // Cancels the statement `pid` runs (57014 there); false: no such backend.
  virtual bool Cancel(int32_t pid) = 0;
  // Ends the connection of `pid` (FATAL 57P01 there); false: no such backend.
  virtual bool Terminate(int32_t pid) = 0;
};

// Notices a statement raises while it runs (PostgreSQL's WARNINGs from
// inside a function, e.g. pg_cancel_backend of a PID that is no backend's):
// kernels add them from any worker thread; the session takes them into the
// statement's result when it ends. Same text convention as
// StatementResult::notices ("WARNING 01000:  ..." for a warning).
class StatementNotices {
 public:
  void Add(std::string notice) {
    std::lock_guard<std::mutex> lock(mu_);
    notices_.push_back(std::move(notice));
  }
  std::vector<std::string> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(notices_, {});
  }

 private:
  std::mutex mu_;
  std::vector<std::string> notices_;
};

}  // namespace forktail
