// SnapshotQuery: one request running on a snapshot process, seen from the
// parent. It owns one connection; Next() streams the result batches.
//
// Failures surface as DbError:
//   - the handler's own error, with its SQLSTATE and message;
//   - 57014 after Cancel();
//   - the snapshot process died: 57P02 "snapshot process 1234 (LSN 5678) died:
//     killed by signal 9" (or "exited with code N"); killed by the manager's
//     lifetime policy: 57P01 "... was terminated: ...";
//   - a malformed frame from the child: 08P01.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace forktail {

class SnapshotManager;
struct SnapshotEntry;

class SnapshotQuery {
 public:
  SnapshotQuery(SnapshotManager* manager, std::shared_ptr<SnapshotEntry> entry,
                std::string_view request);
  ~SnapshotQuery();
  SnapshotQuery(const SnapshotQuery&) = delete;
  SnapshotQuery& operator=(const SnapshotQuery&) = delete;

  // The next batch into *batch; false after Done. Throws DbError.
  bool Next(std::string* batch);
  // Thread-safe: may be called while another thread is blocked in Next().
  void Cancel();

 private:
  [[noreturn]] void ThrowLost(const std::string& detail);

  SnapshotManager* manager_;
  std::shared_ptr<SnapshotEntry> entry_;
  int fd_ = -1;
  bool done_ = false;
  std::mutex write_mu_;
};

// DbError keeps a `const char*` SQLSTATE: codes received over the wire are
// interned here (a small, never-freed set).
const char* InternSqlstate(std::string_view code);

}  // namespace forktail
