#include "recovery/wal/fault_injection_log_file.h"

#include <cerrno>
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
  FaultFile(FaultInjectionLogFileSystem* fs, std::string path, bool writable)
      : fs_(fs), path_(std::move(path)), writable_(writable) {}

  Status Append(const void* data, size_t n) override {
    if (!writable_) return Status::IoError("write of " + DisplayPath(path_) + " failed: read-only");
    return fs_->DoAppend(path_, data, n);
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
    if (node->synced > size) node->synced = size;
    return Status::Ok();
  }
  uint64_t Size() const override {
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
};

Status FaultInjectionLogFileSystem::OpenForAppend(const std::string& path,
                                                  std::unique_ptr<LogFile>* file) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!dirs_.count(Parent(path))) {
      return Status::IoError("open of " + DisplayPath(path) + " failed: No such file or directory");
    }
    auto& node = files_[path];
    if (!node) node = std::make_shared<Node>();
  }
  *file = std::make_unique<FaultFile>(this, path, true);
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::OpenForRead(const std::string& path,
                                                std::unique_ptr<LogFile>* file) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!files_.count(path)) return Status::NotFound(DisplayPath(path) + " does not exist");
  }
  *file = std::make_unique<FaultFile>(this, path, false);
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

Status FaultInjectionLogFileSystem::DoAppend(const std::string& path, const void* data, size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::IoError("write of " + DisplayPath(path) + " failed");
  if (no_space_) {
    return Status::NoSpace("write of " + DisplayPath(path) + " failed: " + std::strerror(ENOSPC));
  }
  if (tear_keep_ >= 0) {
    size_t keep = std::min<size_t>(n, static_cast<size_t>(tear_keep_));
    tear_keep_ = -1;
    it->second->data.append(static_cast<const char*>(data), keep);
    return Status::IoError("write of " + DisplayPath(path) + " failed: " + std::strerror(EIO));
  }
  it->second->data.append(static_cast<const char*>(data), n);
  return Status::Ok();
}

Status FaultInjectionLogFileSystem::DoSync(const std::string& path) {
  std::unique_lock<std::mutex> l(mu_);
  released_.wait(l, [&] { return !hold_syncs_; });
  syncs_++;
  if (fail_sync_at_ != 0 && syncs_ >= fail_sync_at_) {
    return Status::IoError("fdatasync of " + DisplayPath(path) + " failed: " + std::strerror(EIO));
  }
  auto it = files_.find(path);
  if (it != files_.end()) it->second->synced = it->second->data.size();
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
  fail_sync_at_ = syncs_ + nth_from_now;
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
    it->second->data.resize(it->second->synced);
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
  return it == files_.end() ? 0 : it->second->synced;
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
  node->synced = node->data.size();
  node->name_durable = true;
}

}  // namespace forktail::wal
