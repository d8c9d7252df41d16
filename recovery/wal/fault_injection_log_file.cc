#include "recovery/wal/fault_injection_log_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace forktail::wal {
namespace {

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

class FaultFile final : public LogFile {
 public:
  FaultFile(FaultInjectionLogFileSystem* fs, std::string path, bool writable, uint64_t position)
      : fs_(fs), path_(std::move(path)), writable_(writable), position_(position) {}

  Status Append(const void* data, size_t n) override {
    if (!writable_) return Status::IoError("write of " + DisplayPath(path_) + " failed: read-only");
    size_t written = 0;
    Status s = fs_->DoWrite(path_, position_, data, n, &written);
    position_ += written;
    return s;
  }
  Status Preallocate(uint64_t end) override {
    if (!writable_) return Status::IoError("write of " + DisplayPath(path_) + " failed: read-only");
    return fs_->DoPreallocate(path_, end);
  }
  Status Sync() override { return fs_->DoSync(path_); }
  Status ReadAt(uint64_t offset, size_t n, void* out, size_t* got) override {
    std::lock_guard<std::mutex> l(fs_->mu_);
    auto it = fs_->files_.find(path_);
    *got = 0;
    if (it == fs_->files_.end())
      return Status::IoError("read of " + DisplayPath(path_) + " failed");
    const std::string& d = it->second->data;
    if (offset >= d.size()) return Status::Ok();
    *got = std::min<size_t>(n, d.size() - offset);
    std::memcpy(out, d.data() + offset, *got);
    return Status::Ok();
  }
  Status Truncate(uint64_t size) override {
    std::lock_guard<std::mutex> l(fs_->mu_);
    auto& node = fs_->files_[path_];
    if (!node) node = std::make_shared<FaultInjectionLogFileSystem::Node>();
    node->data.resize(size);
    if (node->synced.size() > size) node->synced.resize(size);
    node->dirty_from = std::min<uint64_t>(node->dirty_from, size);
    position_ = size;
    return Status::Ok();
  }
  uint64_t Size() const override {
    if (writable_) return position_;
    std::lock_guard<std::mutex> l(fs_->mu_);
    auto it = fs_->files_.find(path_);
    return it == fs_->files_.end() ? 0 : it->second->data.size();
  }
  Status Close() override { return Status::Ok(); }
  const std::string& path() const override { return path_; }

 private:
  FaultInjectionLogFileSystem* fs_;
  std::string path_;
  bool writable_;
  uint64_t position_;  // writable files: where Append writes
};

Status FaultInjectionLogFileSystem::OpenForAppend(const std::string& path,
                                                  std::unique_ptr<LogFile>* file) {
  uint64_t position = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!dirs_.count(Parent(path))) {
      return Status::IoError("open of " + DisplayPath(path) + " failed: No such file or directory");
    }
    auto& node = files_[path];
    if (!node) node = std::make_shared<Node>();
    position = node->data.size();
  }
  *file = std::make_unique<FaultFile>(this, path, true, position);
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::OpenForRead(const std::string& path,
                                                std::unique_ptr<LogFile>* file) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!files_.count(path)) return Status::NotFound(DisplayPath(path) + " does not exist");
  }
  *file = std::make_unique<FaultFile>(this, path, false, 0);
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::ListDir(const std::string& dir,
                                            std::vector<std::string>* names) {
  std::lock_guard<std::mutex> l(mu_);
  names->clear();
  if (!dirs_.count(dir)) return Status::NotFound(DisplayPath(dir) + " does not exist");
  for (const auto& [path, node] : files_) {
    if (Parent(path) == dir) names->push_back(path.substr(dir.size() + 1));
  }
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::CreateDirIfMissing(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  dirs_[dir] = true;
  return Status::Ok();
}

bool FaultInjectionLogFileSystem::DirExists(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  return dirs_.count(dir) > 0;
}

Status FaultInjectionLogFileSystem::Remove(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  if (files_.erase(path) == 0) {
    return Status::IoError("unlink of " + DisplayPath(path) + " failed: No such file or directory");
  }
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::SyncDir(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [path, node] : files_) {
    if (Parent(path) == dir) node->name_durable = true;
  }
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::DoWrite(const std::string& path, uint64_t offset,
                                            const void* data, size_t n, size_t* written) {
  std::lock_guard<std::mutex> l(mu_);
  *written = 0;
  auto it = files_.find(path);
  if (it == files_.end() || offset > it->second->data.size()) {
    return Status::IoError("write of " + DisplayPath(path) + " failed");
  }
  const uint64_t growth =
      offset + n > it->second->data.size() ? offset + n - it->second->data.size() : 0;
  Status room = CheckRoom(path, growth);
  if (!room.ok()) return room;
  Status result = Status::Ok();
  if (tear_keep_ >= 0) {
    n = std::min<size_t>(n, static_cast<size_t>(tear_keep_));
    tear_keep_ = -1;
    result = Status::IoError("write of " + DisplayPath(path) + " failed: " + std::strerror(EIO));
  }
  std::string& d = it->second->data;
  it->second->dirty_from = std::min<uint64_t>(it->second->dirty_from, offset);
  const size_t overwrite = std::min<size_t>(n, d.size() - offset);
  d.replace(offset, overwrite, static_cast<const char*>(data), overwrite);
  d.append(static_cast<const char*>(data) + overwrite, n - overwrite);
  *written = n;
  return result;
}

Status FaultInjectionLogFileSystem::DoPreallocate(const std::string& path, uint64_t end) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::IoError("write of " + DisplayPath(path) + " failed");
  Node& node = *it->second;
  Status room = CheckRoom(path, end > node.data.size() ? end - node.data.size() : 0);
  if (!room.ok()) return room;
  if (node.data.size() < end) {
    node.dirty_from = std::min<uint64_t>(node.dirty_from, node.data.size());
    node.data.resize(end, '\0');
  }
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::CheckRoom(const std::string& path, uint64_t growth) const {
  if (no_space_ || (growth > 0 && TotalBytesLocked() + growth > capacity_)) {
    return Status::NoSpace("write of " + DisplayPath(path) + " failed: " + std::strerror(ENOSPC));
  }
  return Status::Ok();
}

uint64_t FaultInjectionLogFileSystem::TotalBytesLocked() const {
  uint64_t total = 0;
  for (const auto& [path, node] : files_) total += node->data.size();
  return total;
}

uint64_t FaultInjectionLogFileSystem::TotalBytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return TotalBytesLocked();
}

void FaultInjectionLogFileSystem::SetCapacity(uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  capacity_ = bytes;
}

Status FaultInjectionLogFileSystem::DoSync(const std::string& path) {
  std::unique_lock<std::mutex> l(mu_);
  released_.wait(l, [&] { return !hold_syncs_; });
  syncs_++;
  if (fail_sync_at_ != 0 && syncs_ >= fail_sync_at_) {
    return Status::IoError("fdatasync of " + DisplayPath(path) + " failed: " + std::strerror(EIO));
  }
  auto it = files_.find(path);
  if (it != files_.end()) {
    Node& node = *it->second;
    node.synced.resize(node.data.size());
    if (node.dirty_from < node.data.size()) {
      node.synced.replace(node.dirty_from, std::string::npos, node.data, node.dirty_from);
    }
    node.dirty_from = UINT64_MAX;
  }
  return Status::Ok();
}

void FaultInjectionLogFileSystem::HoldSyncs() {
  std::lock_guard<std::mutex> l(mu_);
  hold_syncs_ = true;
}

void FaultInjectionLogFileSystem::ReleaseSyncs() {
  {
    std::lock_guard<std::mutex> l(mu_);
    hold_syncs_ = false;
  }
  released_.notify_all();
}

void FaultInjectionLogFileSystem::FailSyncAt(uint64_t nth_from_now) {
  std::lock_guard<std::mutex> l(mu_);
  fail_sync_at_ = nth_from_now == 0 ? 0 : syncs_ + nth_from_now;
}

void FaultInjectionLogFileSystem::FailWritesWithNoSpace(bool on) {
  std::lock_guard<std::mutex> l(mu_);
  no_space_ = on;
}

void FaultInjectionLogFileSystem::TearNextWrite(size_t keep_bytes) {
  std::lock_guard<std::mutex> l(mu_);
  tear_keep_ = static_cast<int64_t>(keep_bytes);
}

void FaultInjectionLogFileSystem::SimulateCrash() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = files_.begin(); it != files_.end();) {
    if (!it->second->name_durable) {
      it = files_.erase(it);
      continue;
    }
    it->second->data = it->second->synced;
    it->second->dirty_from = UINT64_MAX;
    ++it;
  }
  fail_sync_at_ = 0;
  no_space_ = false;
  tear_keep_ = -1;
}

uint64_t FaultInjectionLogFileSystem::sync_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return syncs_;
}

uint64_t FaultInjectionLogFileSystem::SyncedSize(const std::string& path) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? 0 : it->second->synced.size();
}

std::string FaultInjectionLogFileSystem::Contents(const std::string& path) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? std::string() : it->second->data;
}

void FaultInjectionLogFileSystem::SetContents(const std::string& path, std::string data) {
  std::lock_guard<std::mutex> l(mu_);
  auto& node = files_[path];
  if (!node) node = std::make_shared<Node>();
  node->data = std::move(data);
  node->synced = node->data;
  node->dirty_from = UINT64_MAX;
  node->name_durable = true;
}

}  // namespace forktail::wal
