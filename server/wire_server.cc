#include "server/wire_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "storage/error.h"

namespace forktail {
namespace {
// Threads beyond both budgets: connections that were refused or evicted and
// are still sending their FATAL.
constexpr size_t kExtraWorkers = 8;

int32_t RandomKey() {
  int32_t key = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&key), sizeof key) != 1) abort();
  return key;
}
}  // namespace

WireServer::WireServer(QueryBackend& backend, ServerOptions options)
    : backend_(backend), options_(std::move(options)) {
  if (!options_.password.empty()) {
    verifier_ = std::make_unique<ScramVerifier>(MakeScramVerifier(options_.password));
  }
  if (!options_.ssl_cert_file.empty() || !options_.ssl_key_file.empty()) {
    try {
      tls_ = TlsContext::Load(options_.ssl_cert_file, options_.ssl_key_file);
    } catch (const std::runtime_error& e) {
      throw DbError("F0000", e.what());  // config_file_error, as PostgreSQL
    }
  }
}

WireServer::~WireServer() { Stop(); }

void WireServer::Start() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  std::string host = options_.listen_address == "*" ? "" : options_.listen_address;
  std::string port = std::to_string(options_.port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    throw DbError(sqlstate::kIoError,
                  "could not resolve \"" + options_.listen_address + "\": " + gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* ai = res; ai != nullptr && listen_fd_ < 0; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      listen_fd_ = fd;
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  freeaddrinfo(res);
  if (listen_fd_ < 0) {
    throw DbError(sqlstate::kIoError,
                  "could not bind to " + options_.listen_address + ":" + port + ": " + error);
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw DbError(sqlstate::kIoError, "eventfd failed");
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

void WireServer::AcceptLoop() {
  const size_t startup_slots = static_cast<size_t>(std::max(1, options_.max_startup_connections));
  const size_t max_workers =
      static_cast<size_t>(options_.max_connections) + startup_slots + kExtraWorkers;
  while (!stopping_.load()) {
    ReapFinishedWorkers();
    // Sessions and startup slots are bounded by their budgets, so the threads
    // beyond them belong to connections that are ending (refused or evicted,
    // sending their FATAL): wait for those rather than drop the next client,
    // whom the kernel's backlog holds meanwhile.
    const bool full = workers_.size() >= max_workers;
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, full ? 1 : -1) < 0) continue;
    if (fds[1].revents & POLLIN) break;
    if (full || !(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;  // EMFILE, ECONNABORTED, ...: keep serving
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    accepted_.fetch_add(1);
    ConnectionHost& host = *this;
    auto connection =
        std::make_unique<Connection>(fd, stop_fd_, host, next_pid_.fetch_add(1), RandomKey());
    {
      std::lock_guard<std::mutex> lock(registry_mu_);
      if (starting_.size() >= startup_slots) {
        // The one that has waited longest is the likeliest never to finish.
        starting_.front()->EvictFromStartup();
        starting_.pop_front();
        evicted_.fetch_add(1);
      }
      starting_.push_back(connection.get());
    }
    Worker& w = workers_.emplace_back();
    w.thread = std::thread([&w, c = connection.release()] {
      std::unique_ptr<Connection> owned(c);
      owned->Run();
      owned.reset();  // leaves the registry before the worker counts as done
      w.done.store(true);
    });
  }
}

void WireServer::ReapFinishedWorkers() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done.load()) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void WireServer::Stop() {
  if (stopping_.exchange(true)) {
    return;
  }
  if (stop_fd_ >= 0) {
    uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof one);
  }
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    for (auto& [pid, connection] : sessions_) connection->Cancel();
  }
  for (Worker& w : workers_) w.thread.join();
  workers_.clear();
  if (stop_fd_ >= 0) ::close(stop_fd_);
  stop_fd_ = -1;
}

int WireServer::active_sessions() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return static_cast<int>(sessions_.size());
}

int WireServer::starting_connections() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return static_cast<int>(starting_.size());
}

bool WireServer::Admit(Connection* connection) {
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = std::find(starting_.begin(), starting_.end(), connection);
  if (it == starting_.end()) return false;  // evicted: a newer connection has its slot
  starting_.erase(it);
  if (sessions_.size() >= static_cast<size_t>(options_.max_connections)) return false;
  sessions_[connection->pid()] = connection;
  return true;
}

void WireServer::Leave(Connection* connection) {
  std::lock_guard<std::mutex> lock(registry_mu_);
  starting_.remove(connection);
  auto it = sessions_.find(connection->pid());
  if (it != sessions_.end() && it->second == connection) sessions_.erase(it);
}

void WireServer::CancelBackend(int32_t pid, int32_t key) {
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = sessions_.find(pid);
  // A wrong key is ignored silently, as in PostgreSQL.
  if (it != sessions_.end() && it->second->secret_key() == key) it->second->Cancel();
}

std::vector<BackendActivity> WireServer::List() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  std::vector<BackendActivity> all;
  all.reserve(sessions_.size());
  for (const auto& [pid, connection] : sessions_) all.push_back(connection->Activity());
  return all;
}

bool WireServer::Cancel(int32_t pid) {
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = sessions_.find(pid);
  if (it == sessions_.end()) return false;
  it->second->Cancel();
  return true;
}

bool WireServer::Terminate(int32_t pid) {
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = sessions_.find(pid);
  if (it == sessions_.end()) return false;
  it->second->Terminate();
  return true;
}

}  // namespace forktail
