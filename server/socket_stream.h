// Buffered, framed I/O on one client socket. Every wait also watches the
// server's stop descriptor, so shutdown wakes a connection blocked in a read
// or a write; an optional deadline bounds how long the peer may take (the
// startup/authentication phase uses it, as PostgreSQL's authentication_timeout).
//
// A message body is read into a buffer that grows with the bytes that actually
// arrived (64 KiB at a time), so a header claiming 1 GiB costs nothing until
// the peer sends that much; lengths above the configured cap are refused from
// the header alone.
//
// After StartTls every byte goes through OpenSSL (SSL_read / SSL_write on the
// non-blocking socket; the same waits decide on SSL_ERROR_WANT_READ/WRITE).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct ssl_st;  // OpenSSL's SSL

namespace forktail {

class TlsContext;

class SocketStream {
 public:
  // kWoken: the wake descriptor (set_wake_fd) became readable first; what
  // was read stays buffered and the read may simply be made again.
  enum class ReadStatus { kOk, kClosed, kStopped, kTimedOut, kWoken };
  using Clock = std::chrono::steady_clock;

  // Takes ownership of `fd`; `stop_fd` (eventfd / pipe, may be -1) is borrowed.
  SocketStream(int fd, int stop_fd);
  ~SocketStream();
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  // A startup packet (length word, then the body returned here: code + data).
  // Throws ProtocolError for a length outside [8, 10000].
  ReadStatus ReadStartupPacket(std::string_view* body);
  // A regular message: its type byte and body. Throws ProtocolError for a
  // length below 4 or a body above `max_body`. The body stays valid until the
  // next read.
  ReadStatus ReadMessage(char* type, std::string_view* body, size_t max_body);

  // Appends to the output buffer; Flush() sends it. Flush returns false when
  // the peer is gone or the server stops.
  std::string* output() { return &out_; }
  bool Flush();
  // Bytes already received and not yet consumed (pipelined messages).
  bool HasBufferedInput() const { return in_end_ > in_pos_; }
  // The type byte of the next message, if any of it is buffered (0: none).
  char PeekType() const { return HasBufferedInput() ? in_[in_pos_] : '\0'; }

  // The TLS handshake (the client was just sent 'S'). False when it fails,
  // the peer leaves or the server stops: the connection is then unusable.
  // Throws ProtocolError when plaintext arrived after the SSLRequest (it
  // would otherwise be taken as sent over TLS).
  bool StartTls(const TlsContext& context);
  bool tls() const { return ssl_ != nullptr; }

  void set_deadline(std::optional<Clock::time_point> deadline) { deadline_ = deadline; }
  // A borrowed descriptor that ends a wait for input with kWoken (-1: none).
  void set_wake_fd(int fd) { wake_fd_ = fd; }
  int fd() const { return fd_; }

 private:
  // Makes at least `n` unconsumed bytes available.
  ReadStatus Fill(size_t n);
  // Waits until fd_ is readable (or writable); kOk, kStopped or kTimedOut.
  ReadStatus Wait(short events);
  void Consume(size_t n) { in_pos_ += n; }
  // One SSL_read / SSL_write: kOk with the bytes `moved` (0: it waited for the
  // socket, try again), else why it stopped.
  ReadStatus TlsIo(char* data, size_t size, bool write, size_t* moved);

  int fd_;
  int stop_fd_;
  int wake_fd_ = -1;
  // Reads taken without a poll since the last one (Fill): a poll also
  // notices a shutdown, so a client that never pauses still gets one now
  // and then.
  uint32_t reads_since_poll_ = 0;
  // Received bytes are in_[in_pos_, in_end_); in_ beyond in_end_ is room for
  // the next recv (never zero-filled again: that cost a 64 KiB memset per
  // message).
  std::string in_;
  size_t in_pos_ = 0;
  size_t in_end_ = 0;
  std::string out_;
  std::optional<Clock::time_point> deadline_;
  ssl_st* ssl_ = nullptr;
};

}  // namespace forktail
