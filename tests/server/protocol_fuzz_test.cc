// Protocol fuzzing against a running server: each connection sends a startup
// (valid, or mutated) and then a stream mixing valid messages, mutated ones
// (flipped bytes, rewritten lengths and types, truncation) and random bytes,
// then half-closes. The server must answer or close every connection without
// hanging (each connection must reach EOF), and afterwards still serve a
// well-formed client. Fixed seed; printed with the message count.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdio>
#include <random>

#include "server/wire_server.h"
#include "tests/server/fake_backend.h"
#include "tests/server/test_client.h"

namespace forktail {
namespace {

constexpr uint32_t kSeed = 20261121;
constexpr int kConnections = 1200;

std::vector<std::string> Corpus() {
  std::vector<std::string> c;
  auto add = [&](auto fn) {
    std::string out;
    fn(&out);
    c.push_back(out);
  };
  add([](std::string* o) { EncodeQuery(o, "select rows 3"); });
  add([](std::string* o) { EncodeQuery(o, "begin; select error"); });
  add([](std::string* o) { EncodeQuery(o, "rollback"); });
  add([](std::string* o) { EncodeQuery(o, ";"); });
  add([](std::string* o) { EncodeQuery(o, "copy t from stdin"); });
  add([](std::string* o) { EncodeRaw(o, 'd', "1\n2\n"); });
  add([](std::string* o) { EncodeRaw(o, 'c', ""); });
  add([](std::string* o) { EncodeRaw(o, 'f', std::string("no\0", 3)); });
  add([](std::string* o) { EncodeParse(o, {"", "select echo $1 $2", {23, 0}}); });
  add([](std::string* o) { EncodeParse(o, {"s", "select types", {}}); });
  add([](std::string* o) {
    EncodeBind(o, {"", "", {1, 0}, {std::string("\0\0\0\1", 4), std::string("x")}, {1}});
  });
  add([](std::string* o) { EncodeBind(o, {"p", "s", {}, {}, {1}}); });
  add([](std::string* o) { EncodeDescribe(o, 'D', {'S', "s"}); });
  add([](std::string* o) { EncodeDescribe(o, 'D', {'P', ""}); });
  add([](std::string* o) { EncodeDescribe(o, 'C', {'P', "p"}); });
  add([](std::string* o) { EncodeExecute(o, {"", 1}); });
  add([](std::string* o) { EncodeExecute(o, {"p", 0}); });
  add([](std::string* o) { EncodeRaw(o, 'S', ""); });
  add([](std::string* o) { EncodeRaw(o, 'H', ""); });
  add([](std::string* o) { EncodeRaw(o, 'F', std::string(10, '\0')); });
  return c;
}

std::string Mutate(std::string m, std::mt19937& rng) {
  std::uniform_int_distribution<int> kind(0, 6);
  std::uniform_int_distribution<int> byte(0, 255);
  auto at = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static const uint32_t kLengths[] = {
      0,          1,          3,          4,          5,
      8,          100,        65536,      1u << 20,   (1u << 20) + 1,
      0x3fffffff, 0x40000000, 0x7fffffff, 0x80000000, 0xffffffff};
  switch (kind(rng)) {
    case 0:  // flip bytes
      for (int i = 0; i < 3; ++i) m[at(m.size())] = static_cast<char>(byte(rng));
      break;
    case 1: {  // rewrite the length
      uint32_t len = kLengths[at(std::size(kLengths))];
      for (int i = 0; i < 4; ++i) m[1 + i] = static_cast<char>(len >> (24 - 8 * i));
      break;
    }
    case 2:  // truncate
      m.resize(at(m.size()));
      break;
    case 3:  // another type byte
      m[0] = static_cast<char>(byte(rng));
      break;
    case 4:  // drop the last byte of the body but keep the length right (missing NUL)
      if (m.size() > 5) {
        m.pop_back();
        uint32_t len = static_cast<uint32_t>(m.size() - 1);
        for (int i = 0; i < 4; ++i) m[1 + i] = static_cast<char>(len >> (24 - 8 * i));
      }
      break;
    case 5: {  // random garbage
      m.assign(1 + at(64), '\0');
      for (char& c : m) c = static_cast<char>(byte(rng));
      break;
    }
    default:  // insert bytes in the body
      m.insert(std::min<size_t>(m.size(), 5 + at(8)),
               std::string(1 + at(8), static_cast<char>(byte(rng))));
  }
  return m;
}

TEST(ProtocolFuzz, ServerSurvivesMalformedStreams) {
  test::FakeBackend backend;
  ServerOptions options;
  options.port = 0;
  options.max_message_bytes = 1 << 20;
  options.authentication_timeout = std::chrono::milliseconds(3000);
  WireServer server(backend, options);
  server.Start();

  std::mt19937 rng(kSeed);
  std::vector<std::string> corpus = Corpus();
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  uint64_t messages = 0, mutated = 0, fatal_closes = 0;
  for (int conn = 0; conn < kConnections; ++conn) {
    test::TestClient c;
    ASSERT_TRUE(c.Connect(server.port())) << "seed " << kSeed << " connection " << conn;
    std::string stream;
    std::string startup;
    EncodeStartupPacket(&startup, {kProtocolVersion3, {{"user", "fuzz"}, {"database", "db"}}});
    if (pick(10) == 0) {  // a mutated startup packet
      std::string m = Mutate("x" + startup, rng).substr(1);
      startup = m;
      ++mutated;
    } else if (pick(10) == 0) {
      std::string ssl;
      EncodeStartupPacket(&ssl, {kSslRequestCode});
      stream += ssl;
    }
    stream += startup;
    ++messages;
    int n = 1 + static_cast<int>(pick(30));
    for (int i = 0; i < n; ++i) {
      std::string m = corpus[pick(corpus.size())];
      if (pick(4) == 0) {
        m = Mutate(m, rng);
        ++mutated;
      }
      stream += m;
      ++messages;
    }
    c.Send(stream);
    ::shutdown(c.fd(), SHUT_WR);
    // Every connection ends: the server answers what it can and closes at EOF
    // or at the first malformed message.
    std::string fatal;
    bool eof = false;
    while (true) {
      auto m = c.Read(5000);
      if (!m) {
        eof = c.ClosedByServer(5000);
        break;
      }
      if (m->type == 'E' && test::ErrorField(*m, 'S') == "FATAL") fatal = test::ErrorField(*m, 'C');
    }
    ASSERT_TRUE(eof) << "server did not close connection " << conn << " (seed " << kSeed << ")";
    if (!fatal.empty()) ++fatal_closes;
  }
  std::printf(
      "protocol fuzz: seed %u, %d connections, %llu messages sent (%llu mutated), %llu "
      "closed with FATAL\n",
      kSeed, kConnections, static_cast<unsigned long long>(messages),
      static_cast<unsigned long long>(mutated), static_cast<unsigned long long>(fatal_closes));

  // Still serving.
  test::TestClient ok;
  ASSERT_TRUE(ok.Connect(server.port()));
  ASSERT_EQ(ok.Startup().back().type, 'Z');
  EXPECT_EQ(test::Types(ok.Query("select rows 2")), "TDDCZ");
  EXPECT_EQ(server.active_sessions(), 1);
}

}  // namespace
}  // namespace forktail
