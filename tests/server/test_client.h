// A minimal PostgreSQL v3 client for protocol tests: raw bytes out, decoded
// backend messages in, with a receive timeout so a broken server fails the
// test instead of hanging it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/messages.h"
#include "server/wire_format.h"

namespace forktail::test {

struct BackendMessage {
  char type = 0;
  std::string body;
};

class TestClient {
 public:
  TestClient() = default;
  ~TestClient() { Close(); }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  bool Connect(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // false when the peer has closed (EPIPE / ECONNRESET).
  bool Send(std::string_view bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += n;
    }
    return true;
  }

  // Raw bytes (the SSLRequest answer is one byte without framing).
  std::optional<std::string> ReadBytes(size_t n, int timeout_ms = 10000) {
    std::string out;
    while (out.size() < n) {
      if (buffered_.empty() && !FillBuffer(timeout_ms)) return std::nullopt;
      size_t take = std::min(n - out.size(), buffered_.size());
      out += buffered_.substr(0, take);
      buffered_.erase(0, take);
    }
    return out;
  }

  // The next backend message; nullopt on EOF or timeout.
  std::optional<BackendMessage> Read(int timeout_ms = 10000) {
    auto header = ReadBytes(5, timeout_ms);
    if (!header) return std::nullopt;
    BackendMessage m;
    m.type = (*header)[0];
    auto len = static_cast<uint32_t>(GetBigEndian(std::string_view(*header).substr(1)));
    if (len < 4) return std::nullopt;
    auto body = ReadBytes(len - 4, timeout_ms);
    if (!body) return std::nullopt;
    m.body = std::move(*body);
    return m;
  }

  // Messages up to and including ReadyForQuery (or up to EOF).
  std::vector<BackendMessage> ReadUntilReady() {
    std::vector<BackendMessage> out;
    while (auto m = Read()) {
      out.push_back(*m);
      if (m->type == 'Z') break;
    }
    return out;
  }

  std::vector<BackendMessage> Startup(const std::string& user = "tester",
                                      const std::string& database = "db") {
    std::string out;
    EncodeStartupPacket(&out, {kProtocolVersion3, {{"user", user}, {"database", database}}});
    Send(out);
    return ReadUntilReady();
  }

  std::vector<BackendMessage> Query(std::string_view sql) {
    std::string out;
    EncodeQuery(&out, sql);
    Send(out);
    return ReadUntilReady();
  }

  // True once the server has closed the connection (reads EOF).
  bool ClosedByServer(int timeout_ms = 10000) {
    while (true) {
      if (!buffered_.empty()) {
        buffered_.clear();
        continue;
      }
      if (!FillBuffer(timeout_ms)) return eof_;
    }
  }

  int fd() const { return fd_; }

 private:
  bool FillBuffer(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buffered_.append(buf, n);
    return true;
  }

  int fd_ = -1;
  std::string buffered_;
  bool eof_ = false;
};

// Field `code` ('C' SQLSTATE, 'M' message, 'S' severity, 'P' position) of an
// ErrorResponse / NoticeResponse body.
inline std::string ErrorField(const BackendMessage& m, char code) {
  WireReader r(m.body);
  while (!r.AtEnd()) {
    char c = static_cast<char>(r.ReadByte());
    if (c == 0) break;
    std::string_view v = r.ReadString();
    if (c == code) return std::string(v);
  }
  return "";
}

inline std::vector<std::optional<std::string>> DataRowValues(const BackendMessage& m) {
  WireReader r(m.body);
  std::vector<std::optional<std::string>> out;
  int n = r.ReadInt16();
  for (int i = 0; i < n; ++i) {
    int32_t len = r.ReadInt32();
    if (len < 0) {
      out.emplace_back();
    } else {
      out.emplace_back(std::string(r.ReadBytes(len)));
    }
  }
  return out;
}

// Frontend messages, encoded.
inline std::string Msg(char type, std::string_view body = {}) {
  std::string out;
  EncodeRaw(&out, type, body);
  return out;
}
inline std::string Parse(std::string name, std::string query, std::vector<int32_t> oids = {}) {
  std::string out;
  EncodeParse(&out, {std::move(name), std::move(query), std::move(oids)});
  return out;
}
inline std::string Bind(BindMessage m) {
  std::string out;
  EncodeBind(&out, m);
  return out;
}
inline std::string Describe(char kind, std::string name) {
  std::string out;
  EncodeDescribe(&out, 'D', {kind, std::move(name)});
  return out;
}
inline std::string Execute(std::string portal = "", int max_rows = 0) {
  std::string out;
  EncodeExecute(&out, {std::move(portal), max_rows});
  return out;
}
inline std::string Sync() { return Msg('S'); }

inline std::string Types(const std::vector<BackendMessage>& ms) {
  std::string s;
  for (const auto& m : ms) s.push_back(m.type);
  return s;
}

inline const BackendMessage* FindMessage(const std::vector<BackendMessage>& ms, char type) {
  for (const auto& m : ms) {
    if (m.type == type) return &m;
  }
  return nullptr;
}

}  // namespace forktail::test
