// POSIX implementation of the log-file seam: write(2) loops, fdatasync(2),
// ftruncate(2), pread(2). Errors carry the operation, the file and strerror.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "recovery/wal/log_file.h"

namespace forktail::wal {
namespace {

Status ErrnoStatus(const char* op, const std::string& path, int err) {
  std::string m = std::string(op) + " of " + DisplayPath(path) + " failed: " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) return Status::NoSpace(m);
  return Status::IoError(m);
}

class PosixLogFile final : public LogFile {
 public:
  PosixLogFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size), allocated_(size) {}
  ~PosixLogFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Append(const void* data, size_t n) override {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(size_));
      if (w < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("write", path_, errno);
      }
      p += w;
      n -= static_cast<size_t>(w);
      size_ += static_cast<uint64_t>(w);
    }
    allocated_ = std::max(allocated_, size_);
    return Status::Ok();
  }
  Status Preallocate(uint64_t end) override {
    // Real zeros: posix_fallocate's unwritten extents would turn written at
    // each append, a metadata change again.
    static const char kZeros[64 << 10] = {};
    while (allocated_ < end) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof(kZeros), end - allocated_));
      ssize_t w = ::pwrite(fd_, kZeros, n, static_cast<off_t>(allocated_));
      if (w < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("write", path_, errno);
      }
      allocated_ += static_cast<uint64_t>(w);
    }
    return Status::Ok();
  }
  Status Sync() override {
    if (::fdatasync(fd_) != 0) return ErrnoStatus("fdatasync", path_, errno);
    return Status::Ok();
  }
  Status ReadAt(uint64_t offset, size_t n, void* out, size_t* got) override {
    char* p = static_cast<char*>(out);
    *got = 0;
    while (n > 0) {
      ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("read", path_, errno);
      }
      if (r == 0) break;
      p += r;
      n -= static_cast<size_t>(r);
      offset += static_cast<uint64_t>(r);
      *got += static_cast<size_t>(r);
    }
    return Status::Ok();
  }
  Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return ErrnoStatus("truncate", path_, errno);
    }
    size_ = allocated_ = size;
    return Status::Ok();
  }
  uint64_t Size() const override { return size_; }
  Status Close() override {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) return ErrnoStatus("close", path_, errno);
    return Status::Ok();
  }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;       // the append position
  uint64_t allocated_;  // the file's length: size_, or more after Preallocate
};

class PosixFs final : public LogFileSystem {
 public:
  Status OpenForAppend(const std::string& path, std::unique_ptr<LogFile>* file) override {
    return Open(path, O_RDWR | O_CREAT | O_CLOEXEC, file);
  }
  Status OpenForRead(const std::string& path, std::unique_ptr<LogFile>* file) override {
    return Open(path, O_RDONLY | O_CLOEXEC, file);
  }
  Status ListDir(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT) return Status::NotFound(DisplayPath(dir) + " does not exist");
      return ErrnoStatus("opendir", dir, errno);
    }
    while (struct dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names->push_back(std::move(n));
    }
    ::closedir(d);
    return Status::Ok();
  }
  Status CreateDirIfMissing(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus("mkdir", dir, errno);
    }
    return Status::Ok();
  }
  bool DirExists(const std::string& dir) override {
    struct stat st;
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }
  Status Remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return ErrnoStatus("unlink", path, errno);
    return Status::Ok();
  }
  Status SyncDir(const std::string& dir) override {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", dir, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return ErrnoStatus("fsync", dir, err);
    return Status::Ok();
  }

 private:
  static Status Open(const std::string& path, int flags, std::unique_ptr<LogFile>* file) {
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(DisplayPath(path) + " does not exist");
      return ErrnoStatus("open", path, errno);
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("stat", path, err);
    }
    *file = std::make_unique<PosixLogFile>(path, fd, static_cast<uint64_t>(st.st_size));
    return Status::Ok();
  }
};

}  // namespace

LogFileSystem* PosixLogFileSystem() {
  static PosixFs fs;
  return &fs;
}

std::string DisplayPath(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') end--;
  size_t slash = path.rfind('/', end - 1);
  if (slash == std::string::npos || slash == 0) return path.substr(0, end);
  size_t prev = path.rfind('/', slash - 1);
  size_t start = prev == std::string::npos ? 0 : prev + 1;
  return path.substr(start, end - start);
}

}  // namespace forktail::wal
