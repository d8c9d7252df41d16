#include "snapshot/snapshot_control.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "snapshot/fork_exclusions.h"
#include "snapshot/snapshot_manager.h"
#include "storage/error.h"

namespace forktail {
namespace {

constexpr size_t kMaxRequest = 256;

// Fills `addr` for `path`; a path too long for sun_path goes through an
// O_PATH descriptor of its directory (*dir_fd, closed by the caller).
bool MakeAddress(const std::string& path, sockaddr_un* addr, int* dir_fd) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  *dir_fd = -1;
  std::string name = path;
  if (name.size() >= sizeof(addr->sun_path)) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    *dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*dir_fd < 0) return false;
    name = fmt::format("/proc/self/fd/{}/{}", *dir_fd, path.substr(slash + 1));
    if (name.size() >= sizeof(addr->sun_path)) return false;
  }
  std::memcpy(addr->sun_path, name.data(), name.size());
  return true;
}

int Connect(const std::string& path) {
  sockaddr_un addr;
  int dir_fd = -1;
  if (!MakeAddress(path, &addr, &dir_fd)) {
    if (dir_fd >= 0) close(dir_fd);
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int saved = errno;
    close(fd);
    fd = -1;
    errno = saved;
  }
  if (dir_fd >= 0) close(dir_fd);
  return fd;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void SetTimeouts(int fd, int seconds) {
  timeval tv{seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

}  // namespace

SnapshotControlServer::SnapshotControlServer(SnapshotManager* manager, const std::string& data_dir)
    : manager_(manager), path_(data_dir + "/" + kSnapshotControlSocket) {
  // A socket file nobody answers on is left over from a crashed server.
  int probe = Connect(path_);
  if (probe >= 0) {
    close(probe);
    throw DbError(sqlstate::kIoError,
                  fmt::format("could not create control socket \"{}\": another server is "
                              "running on this data directory",
                              path_));
  }
  unlink(path_.c_str());
  std::string error;
  ForkExclusions::Global().OpenExcluded([&](std::vector<int>* fds) {
    sockaddr_un addr;
    int dir_fd = -1;
    if (!MakeAddress(path_, &addr, &dir_fd)) {
      error = "path too long";
    } else {
      int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      mode_t old_mask = umask(077);  // owner only: it lists process ids
      if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
          listen(fd, 16) != 0) {
        error = std::strerror(errno);
        if (fd >= 0) close(fd);
      } else {
        listen_fd_ = fd;
        fds->push_back(fd);
      }
      umask(old_mask);
    }
    if (dir_fd >= 0) close(dir_fd);
  });
  if (listen_fd_ < 0) {
    throw DbError(sqlstate::kIoError,
                  fmt::format("could not create control socket \"{}\": {}", path_, error));
  }
  thread_ = std::thread([this] { Loop(); });
}

SnapshotControlServer::~SnapshotControlServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  ForkExclusions::Global().IncludeFd(listen_fd_);
  close(listen_fd_);
  unlink(path_.c_str());
}

void SnapshotControlServer::Loop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int fd = -1;
    ForkExclusions::Global().OpenExcluded([&](std::vector<int>* fds) {
      fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      fds->push_back(fd);
    });
    if (fd < 0) continue;
    Serve(fd);
    ForkExclusions::Global().IncludeFd(fd);
    close(fd);
  }
}

void SnapshotControlServer::Serve(int fd) {
  SetTimeouts(fd, 2);
  std::string request;
  char buf[128];
  while (request.find('\n') == std::string::npos && request.size() <= kMaxRequest) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    request.append(buf, static_cast<size_t>(n));
  }
  size_t end = request.find('\n');
  if (end == std::string::npos) {
    WriteAll(fd, "error: expected one request line\n");
    return;
  }
  WriteAll(fd, Answer(std::string_view(request).substr(0, end)));
}

std::string SnapshotControlServer::Answer(std::string_view request) {
  if (!request.empty() && request.back() == '\r') request.remove_suffix(1);
  if (request != "snapshots") {
    return fmt::format("error: unknown request \"{}\"\n", request.substr(0, 64));
  }
  std::string out = FormatSnapshotTable(manager_->List());
  SnapshotStats st = manager_->stats();
  out += fmt::format("created {} died {} killed {} refused {} start_failures {}\n", st.created,
                     st.died, st.killed, st.refused, st.start_failures);
  return out;
}

Status QuerySnapshotControl(const std::string& data_dir, std::string_view request,
                            std::string* answer) {
  const std::string path = data_dir + "/" + kSnapshotControlSocket;
  int fd = Connect(path);
  if (fd < 0) {
    return Status::IoError(
        fmt::format("could not connect to control socket \"{}\": {}", path, std::strerror(errno)));
  }
  SetTimeouts(fd, 5);
  answer->clear();
  bool ok = WriteAll(fd, std::string(request) + "\n");
  char buf[4096];
  while (ok) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    answer->append(buf, static_cast<size_t>(n));
  }
  int saved = errno;
  close(fd);
  if (!ok) {
    return Status::IoError(fmt::format("control socket \"{}\": {}", path, std::strerror(saved)));
  }
  return Status::Ok();
}

}  // namespace forktail
