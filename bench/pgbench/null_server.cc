// null_server: the ceiling of any PostgreSQL-protocol server on this machine.
//
// It speaks just enough of the v3 protocol for pgbench (startup, simple
// query, Parse/Bind/Describe/Execute/Sync) and answers every statement with a
// canned result at once: no parsing, no data, no fsync. One thread, epoll,
// non-blocking sockets, every reply of a read batch sent in one write. What
// pgbench measures against it is the cost of the client, the kernel's
// loopback TCP and the round trips themselves; no database serving the same
// clients on the same cores can exceed it. The pgbench benchmarks print each
// system's tps beside it so that "2x PostgreSQL" can be read against what the
// machine allows.
//
//   null_server PORT
//
// Every SELECT returns one row with the value 10 (so pgbench's scale probe,
// `select count(*) from pgbench_branches`, reads scale 10); other statements
// complete with their first word as the tag (UPDATE 1, INSERT 0 1, BEGIN, ...).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

namespace {

struct Out {
  std::string bytes;
  void Message(char type, const std::string& body) {
    bytes.push_back(type);
    uint32_t len = htonl(static_cast<uint32_t>(body.size() + 4));
    bytes.append(reinterpret_cast<const char*>(&len), 4);
    bytes += body;
  }
};

std::string Int32(int32_t v) {
  uint32_t n = htonl(static_cast<uint32_t>(v));
  return std::string(reinterpret_cast<const char*>(&n), 4);
}
std::string Int16(int16_t v) {
  uint16_t n = htons(static_cast<uint16_t>(v));
  return std::string(reinterpret_cast<const char*>(&n), 2);
}

bool IsSelect(const std::string& sql) {
  size_t i = 0;
  while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) i++;
  return sql.size() - i >= 6 && strncasecmp(sql.data() + i, "select", 6) == 0;
}

std::string Tag(const std::string& sql) {
  if (IsSelect(sql)) return "SELECT 1";
  size_t i = 0;
  while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) i++;
  size_t j = i;
  while (j < sql.size() && std::isalpha(static_cast<unsigned char>(sql[j]))) j++;
  std::string word = sql.substr(i, j - i);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (word == "INSERT") return "INSERT 0 1";
  if (word == "UPDATE" || word == "DELETE") return word + " 1";
  if (word == "END") return "COMMIT";
  return word;
}

void RowDescription(Out& out) {
  std::string body = Int16(1) + std::string("x") + '\0' + Int32(0) + Int16(0) + Int32(20) +
                     Int16(8) + Int32(-1) + Int16(0);
  out.Message('T', body);
}
void DataRow(Out& out) { out.Message('D', Int16(1) + Int32(2) + "10"); }

// pgbench's partition probe (`select o.n, p.partstrat, count(...) ...`)
// reads three columns: 2, NULL, 0 (not partitioned), as PostgreSQL answers.
bool IsPartitionProbe(const std::string& sql) {
  return sql.find("p.partstrat") != std::string::npos;
}
void PartitionProbeRows(Out& out) {
  std::string desc = Int16(3);
  for (const char* name : {"n", "partstrat", "count"}) {
    desc += std::string(name) + '\0' + Int32(0) + Int16(0) + Int32(20) + Int16(8) + Int32(-1) +
            Int16(0);
  }
  out.Message('T', desc);
  out.Message('D', Int16(3) + Int32(1) + "2" + Int32(-1) + Int32(1) + "0");
}

struct Conn {
  int fd = -1;
  bool started = false;
  char status = 'I';
  std::string in;
  std::unordered_map<std::string, std::string> statements;
  std::string portal_sql;
  bool failed_until_sync = false;
};

void Track(Conn& c, const std::string& tag) {
  if (tag == "BEGIN") c.status = 'T';
  if (tag == "COMMIT" || tag == "ROLLBACK") c.status = 'I';
}

// Answers whole messages at the front of c.in; false: close the connection.
bool Serve(Conn& c, Out& out) {
  size_t at = 0;
  for (;;) {
    if (!c.started) {
      if (c.in.size() - at < 8) break;
      uint32_t len, code;
      std::memcpy(&len, c.in.data() + at, 4);
      std::memcpy(&code, c.in.data() + at + 4, 4);
      len = ntohl(len);
      code = ntohl(code);
      if (len < 8 || len > 10000) return false;
      if (c.in.size() - at < len) break;
      at += len;
      if (code == 80877103 || code == 80877104) {  // SSLRequest, GSSENCRequest
        out.bytes.push_back('N');
        continue;
      }
      c.started = true;
      out.Message('R', Int32(0));
      out.Message('S', std::string("server_version") + '\0' + "15.0" + '\0');
      out.Message('S', std::string("client_encoding") + '\0' + "UTF8" + '\0');
      out.Message('K', Int32(1) + Int32(2));
      out.Message('Z', "I");
      continue;
    }
    if (c.in.size() - at < 5) break;
    char type = c.in[at];
    uint32_t len;
    std::memcpy(&len, c.in.data() + at + 1, 4);
    len = ntohl(len);
    if (len < 4) return false;
    if (c.in.size() - at < len + 1) break;
    const char* body = c.in.data() + at + 5;
    const size_t body_len = len - 4;
    at += len + 1;
    switch (type) {
      case 'Q': {
        std::string sql(body, strnlen(body, body_len));
        std::string tag = Tag(sql);
        if (IsPartitionProbe(sql)) {
          PartitionProbeRows(out);
        } else if (IsSelect(sql)) {
          RowDescription(out);
          DataRow(out);
        }
        out.Message('C', tag + '\0');
        Track(c, tag);
        out.Message('Z', std::string(1, c.status));
        break;
      }
      case 'P': {
        std::string name(body, strnlen(body, body_len));
        const char* q = body + name.size() + 1;
        c.statements[name] = std::string(q, strnlen(q, body_len - name.size() - 1));
        out.Message('1', "");
        break;
      }
      case 'B': {
        std::string portal(body, strnlen(body, body_len));
        const char* s = body + portal.size() + 1;
        auto it = c.statements.find(std::string(s, strnlen(s, body_len - portal.size() - 1)));
        c.portal_sql = it == c.statements.end() ? "" : it->second;
        out.Message('2', "");
        break;
      }
      case 'D': {
        const bool statement = body_len > 0 && body[0] == 'S';
        std::string sql = c.portal_sql;
        if (statement) {
          auto it = c.statements.find(std::string(body + 1, strnlen(body + 1, body_len - 1)));
          sql = it == c.statements.end() ? "" : it->second;
          out.Message('t', Int16(0));
        }
        if (IsSelect(sql)) {
          RowDescription(out);
        } else {
          out.Message('n', "");
        }
        break;
      }
      case 'E': {
        if (IsSelect(c.portal_sql)) DataRow(out);
        std::string tag = Tag(c.portal_sql);
        out.Message('C', tag + '\0');
        Track(c, tag);
        break;
      }
      case 'S':
        out.Message('Z', std::string(1, c.status));
        break;
      case 'H':
      case 'C':
        if (type == 'C') out.Message('3', "");
        break;
      case 'X':
        return false;
      default:
        return false;
    }
  }
  c.in.erase(0, at);
  return true;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EAGAIN) {
      // Replies are a few hundred bytes; a full socket buffer means a client
      // that stopped reading. Spin briefly rather than keep per-fd queues.
      usleep(50);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: null_server PORT\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 128) != 0) {
    std::perror("null_server: bind/listen");
    return 1;
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener;
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  std::map<int, std::unique_ptr<Conn>> conns;
  epoll_event events[64];
  char buf[65536];
  for (;;) {
    int n = epoll_wait(ep, events, 64, -1);
    for (int i = 0; i < n; i++) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        int cfd;
        while ((cfd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          auto c = std::make_unique<Conn>();
          c->fd = cfd;
          epoll_event cev{};
          cev.events = EPOLLIN;
          cev.data.fd = cfd;
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
          conns[cfd] = std::move(c);
        }
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      bool open = true;
      ssize_t r;
      while ((r = ::recv(fd, buf, sizeof buf, 0)) > 0) c.in.append(buf, static_cast<size_t>(r));
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) open = false;
      Out out;
      if (open) open = Serve(c, out);
      if (!out.bytes.empty() && !WriteAll(fd, out.bytes)) open = false;
      if (!open) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        ::close(fd);
        conns.erase(it);
      }
    }
  }
}
