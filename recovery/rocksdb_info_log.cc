#include "recovery/rocksdb_info_log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace forktail::ckpt {

std::shared_ptr<RocksDbInfoLog> RocksDbInfoLog::Open(const std::string& dir, uint64_t max_bytes) {
  std::error_code ec;
  // RocksDB's own rotation kept LOG.old.<microseconds> files; ours keeps one LOG.old.
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind("LOG.old.", 0) == 0) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
  std::shared_ptr<RocksDbInfoLog> log(new RocksDbInfoLog(dir, max_bytes));
  log->OpenFresh();
  return log;
}

std::shared_ptr<RocksDbInfoLog> RocksDbInfoLog::Discarding() {
  return std::shared_ptr<RocksDbInfoLog>(new RocksDbInfoLog("", UINT64_MAX));
}

RocksDbInfoLog::RocksDbInfoLog(std::string dir, uint64_t max_bytes)
    : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL),
      dir_(std::move(dir)),
      max_bytes_(max_bytes) {}

RocksDbInfoLog::~RocksDbInfoLog() {
  if (fd_ >= 0) ::close(fd_);
}

void RocksDbInfoLog::OpenFresh() {
  if (fd_ >= 0) ::close(fd_);
  const std::string path = dir_ + "/LOG";
  std::error_code ec;
  std::filesystem::rename(path, path + ".old", ec);  // none yet: nothing to keep
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  bytes_ = 0;
}

void RocksDbInfoLog::Logv(const char* format, va_list ap) {
  char line[4096];
  timeval now{};
  ::gettimeofday(&now, nullptr);
  tm t{};
  ::localtime_r(&now.tv_sec, &t);
  int head = std::snprintf(line, sizeof line, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ",
                           t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                           static_cast<long>(now.tv_usec));
  if (head < 0) return;
  int body = std::vsnprintf(line + head, sizeof line - static_cast<size_t>(head), format, ap);
  if (body < 0) return;
  size_t n = std::min(sizeof line - 1, static_cast<size_t>(head) + static_cast<size_t>(body));
  if (line[n - 1] != '\n') line[n++] = '\n';  // a cut line keeps its end
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes_ + n > max_bytes_) OpenFresh();
  if (fd_ < 0) return;
  ssize_t written = ::write(fd_, line, n);
  if (written > 0) bytes_ += static_cast<uint64_t>(written);  // a short or failed write is dropped
}

size_t RocksDbInfoLog::GetLogFileSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace forktail::ckpt
