#include "snapshot/memory_usage.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace forktail {

namespace {
// "Private_Dirty:      1234 kB" -> bytes.
bool ParseField(std::string_view line, std::string_view name, uint64_t* out) {
  if (line.substr(0, name.size()) != name || line.size() <= name.size() ||
      line[name.size()] != ':') {
    return false;
  }
  *out = std::strtoull(std::string(line.substr(name.size() + 1)).c_str(), nullptr, 10) * 1024;
  return true;
}
}  // namespace

Status ReadProcessMemory(pid_t pid, ProcessMemory* out) {
  const std::string path = "/proc/" + std::to_string(pid) + "/smaps_rollup";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ESRCH) return Status::NotFound(path);
    return Status::IoError(path + ": " + std::strerror(errno));
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (text.empty()) return Status::NotFound(path + " is empty (process exited)");
  *out = ProcessMemory{};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    ParseField(line, "Rss", &out->rss_bytes) ||
        ParseField(line, "Private_Clean", &out->private_clean_bytes) ||
        ParseField(line, "Private_Dirty", &out->private_dirty_bytes) ||
        ParseField(line, "Shared_Clean", &out->shared_clean_bytes) ||
        ParseField(line, "Shared_Dirty", &out->shared_dirty_bytes);
    pos = end + 1;
  }
  return Status::Ok();
}

}  // namespace forktail
