#include "server/socket_stream.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/messages.h"
#include "server/tls_context.h"
#include "server/wire_format.h"

namespace forktail {
namespace {
constexpr size_t kReadChunk = 64 * 1024;
// Input buffer kept between messages (a larger one is released when drained).
constexpr size_t kKeptInputBytes = 4 * kReadChunk;
constexpr uint32_t kReadsBetweenPolls = 64;
}  // namespace

SocketStream::SocketStream(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}

SocketStream::~SocketStream() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);  // best effort close_notify; never waits (non-blocking socket)
    SSL_free(ssl_);
  }
  if (fd_ >= 0) ::close(fd_);
}

bool SocketStream::StartTls(const TlsContext& context) {
  if (HasBufferedInput()) throw ProtocolError("received unencrypted data after SSL request");
  int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK) < 0) return false;
  ssl_ = SSL_new(context.native());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) return false;
  while (true) {
    ERR_clear_error();
    int r = SSL_accept(ssl_);
    if (r == 1) return true;
    int error = SSL_get_error(ssl_, r);
    short events = error == SSL_ERROR_WANT_READ    ? POLLIN
                   : error == SSL_ERROR_WANT_WRITE ? POLLOUT
                                                   : 0;
    if (events == 0 || Wait(events) != ReadStatus::kOk) {
      ERR_clear_error();
      return false;
    }
  }
}

SocketStream::ReadStatus SocketStream::TlsIo(char* data, size_t size, bool write, size_t* moved) {
  ERR_clear_error();
  *moved = 0;
  int r = write ? SSL_write_ex(ssl_, data, size, moved) : SSL_read_ex(ssl_, data, size, moved);
  if (r == 1) return ReadStatus::kOk;
  int error = SSL_get_error(ssl_, r);
  ERR_clear_error();
  if (error == SSL_ERROR_WANT_READ) return Wait(POLLIN);
  if (error == SSL_ERROR_WANT_WRITE) return Wait(POLLOUT);
  return ReadStatus::kClosed;  // close_notify, reset, or a TLS protocol error
}

SocketStream::ReadStatus SocketStream::Wait(short events) {
  while (true) {
    pollfd fds[3] = {{fd_, events, 0}, {stop_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int timeout_ms = -1;
    if (deadline_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - Clock::now());
      if (left.count() <= 0) return ReadStatus::kTimedOut;
      timeout_ms = static_cast<int>(left.count());
    }
    // poll skips negative descriptors.
    int n = ::poll(fds, 3, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadStatus::kClosed;
    }
    if (n == 0) continue;  // re-check the deadline
    if (stop_fd_ >= 0 && (fds[1].revents & POLLIN)) return ReadStatus::kStopped;
    if (fds[0].revents != 0) return ReadStatus::kOk;
    if (wake_fd_ >= 0 && (fds[2].revents & POLLIN)) return ReadStatus::kWoken;
  }
}

SocketStream::ReadStatus SocketStream::Fill(size_t n) {
  if (in_pos_ > 0 && in_pos_ >= in_end_ / 2) {
    std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
    in_end_ -= in_pos_;
    in_pos_ = 0;
    // A large message is gone: give its buffer back.
    if (in_end_ == 0 && in_.size() > kKeptInputBytes) std::string().swap(in_);
  }
  while (in_end_ - in_pos_ < n) {
    // Grows by the bytes that may arrive next; resize zero-fills only the growth.
    if (in_.size() < in_end_ + kReadChunk) in_.resize(in_end_ + kReadChunk);
    if (ssl_ != nullptr) {
      size_t got = 0;
      ReadStatus s = TlsIo(in_.data() + in_end_, kReadChunk, /*write=*/false, &got);
      in_end_ += got;
      if (s != ReadStatus::kOk) return s;
      continue;
    }
    // Data already queued (a pipelining client) is taken without a poll
    // first; poll when there is none, and after kReadsBetweenPolls reads
    // (the poll is where a shutdown is seen: a COPY that streams for
    // minutes still stops within a few megabytes).
    if (reads_since_poll_ < kReadsBetweenPolls) {
      ssize_t got = ::recv(fd_, in_.data() + in_end_, kReadChunk, MSG_DONTWAIT);
      if (got > 0) {
        in_end_ += static_cast<size_t>(got);
        reads_since_poll_++;
        continue;
      }
      if (got == 0) return ReadStatus::kClosed;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return ReadStatus::kClosed;
    }
    ReadStatus s = Wait(POLLIN);
    if (s != ReadStatus::kOk) return s;
    reads_since_poll_ = 0;
  }
  return ReadStatus::kOk;
}

SocketStream::ReadStatus SocketStream::ReadStartupPacket(std::string_view* body) {
  ReadStatus s = Fill(4);
  if (s != ReadStatus::kOk) return s;
  auto len = static_cast<int32_t>(GetBigEndian(std::string_view(in_).substr(in_pos_, 4)));
  if (len < 8 || len > kMaxStartupPacketLength)
    throw ProtocolError("invalid length of startup packet");
  s = Fill(len);
  if (s != ReadStatus::kOk) return s;
  *body = std::string_view(in_).substr(in_pos_ + 4, len - 4);
  Consume(len);
  return ReadStatus::kOk;
}

SocketStream::ReadStatus SocketStream::ReadMessage(char* type, std::string_view* body,
                                                   size_t max_body) {
  ReadStatus s = Fill(5);
  if (s != ReadStatus::kOk) return s;
  *type = in_[in_pos_];
  auto len = static_cast<int32_t>(GetBigEndian(std::string_view(in_).substr(in_pos_ + 1, 4)));
  if (len < 4 || static_cast<size_t>(len - 4) > max_body) {
    throw ProtocolError("invalid message length");
  }
  s = Fill(1 + static_cast<size_t>(len));
  if (s != ReadStatus::kOk) return s;
  *body = std::string_view(in_).substr(in_pos_ + 5, len - 4);
  Consume(1 + static_cast<size_t>(len));
  return ReadStatus::kOk;
}

bool SocketStream::Flush() {
  size_t sent = 0;
  while (sent < out_.size() && ssl_ != nullptr) {
    size_t n = 0;
    if (TlsIo(out_.data() + sent, out_.size() - sent, /*write=*/true, &n) != ReadStatus::kOk) {
      break;
    }
    sent += n;
  }
  while (sent < out_.size() && ssl_ == nullptr) {
    ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += n;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (Wait(POLLOUT) != ReadStatus::kOk) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  bool ok = sent == out_.size();
  out_.clear();
  return ok;
}

}  // namespace forktail
