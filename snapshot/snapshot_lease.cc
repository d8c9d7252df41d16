#include <cassert>

#include "snapshot/snapshot_entry.h"
#include "snapshot/snapshot_manager.h"

namespace forktail {

SnapshotLease::SnapshotLease(SnapshotManager* manager, std::shared_ptr<SnapshotEntry> entry)
    : manager_(manager), entry_(std::move(entry)) {}

SnapshotLease::SnapshotLease(SnapshotLease&& other) noexcept
    : manager_(other.manager_), entry_(std::move(other.entry_)) {}

SnapshotLease& SnapshotLease::operator=(SnapshotLease&& other) noexcept {
  if (this != &other) {
    Release();
    manager_ = other.manager_;
    entry_ = std::move(other.entry_);
  }
  return *this;
}

SnapshotLease::~SnapshotLease() { Release(); }

void SnapshotLease::Release() {
  if (entry_) manager_->ReleaseLease(entry_);
  entry_.reset();
}

Lsn SnapshotLease::lsn() const {
  assert(entry_ && "lsn() of an empty or released SnapshotLease");
  return entry_->lsn;
}
pid_t SnapshotLease::pid() const {
  assert(entry_ && "pid() of an empty or released SnapshotLease");
  return entry_->pid;
}
std::chrono::steady_clock::time_point SnapshotLease::created() const {
  assert(entry_ && "created() of an empty or released SnapshotLease");
  return entry_->created;
}
uint64_t SnapshotLease::commits() const {
  assert(entry_ && "commits() of an empty or released SnapshotLease");
  return entry_->commits;
}
const std::string& SnapshotLease::address() const { return entry_->address; }

std::unique_ptr<SnapshotQuery> SnapshotLease::Start(std::string_view request) {
  return std::make_unique<SnapshotQuery>(manager_, entry_, request);
}

std::vector<std::string> SnapshotLease::Run(std::string_view request) {
  auto query = Start(request);
  std::vector<std::string> batches;
  std::string batch;
  while (query->Next(&batch)) batches.push_back(std::move(batch));
  return batches;
}

}  // namespace forktail
