// Authentication and malformed traffic over a real socket: SCRAM-SHA-256 with
// the right and a wrong password, and every kind of malformed message closing
// only its own connection with FATAL 08P01 while the server keeps serving.
#include <gtest/gtest.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <chrono>

#include "server/scram.h"
#include "server/wire_server.h"
#include "tests/server/fake_backend.h"
#include "tests/server/test_client.h"

namespace forktail {
namespace {

using test::ErrorField;
using test::TestClient;
using test::Types;

std::array<uint8_t, 32> Hmac(const uint8_t* key, std::string_view data) {
  std::array<uint8_t, 32> out{};
  unsigned len = 0;
  HMAC(EVP_sha256(), key, 32, reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       out.data(), &len);
  return out;
}

std::string SaslBody(std::string_view data) {
  std::string body = std::string("SCRAM-SHA-256") + '\0';
  PutBigEndian(&body, data.size(), 4);
  body += data;
  return body;
}

// Runs the client side of SCRAM; returns the messages after the client-final.
std::vector<test::BackendMessage> ScramLogin(TestClient& c, const std::string& user,
                                             const std::string& password) {
  std::string out;
  EncodeStartupPacket(&out, {kProtocolVersion3, {{"user", user}, {"database", "db"}}});
  c.Send(out);
  auto sasl = c.Read();
  // A refusal instead of the SASL exchange (53300, 28000): the caller sees it.
  if (!sasl || sasl->type != 'R') {
    return sasl ? std::vector<test::BackendMessage>{*sasl} : std::vector<test::BackendMessage>{};
  }
  EXPECT_EQ(sasl->body.substr(0, 4), std::string("\0\0\0\x0a", 4));
  EXPECT_NE(sasl->body.find("SCRAM-SHA-256"), std::string::npos);
  const std::string nonce = "fyko+d2lbbFgONRv9qkxdawL";
  const std::string client_first_bare = "n=,r=" + nonce;
  out.clear();
  EncodeRaw(&out, 'p', SaslBody("n,," + client_first_bare));
  c.Send(out);
  auto cont = c.Read();
  EXPECT_TRUE(cont && cont->type == 'R');
  if (!cont || cont->type != 'R') return {};
  EXPECT_EQ(cont->body.substr(0, 4), std::string("\0\0\0\x0b", 4));
  std::string server_first = cont->body.substr(4);
  std::string r = server_first.substr(2, server_first.find(',') - 2);
  size_t s_at = server_first.find(",s=") + 3;
  std::string salt = *Base64Decode(server_first.substr(s_at, server_first.find(",i=") - s_at));
  int iterations = std::stoi(server_first.substr(server_first.find(",i=") + 3));
  EXPECT_EQ(r.substr(0, nonce.size()), nonce);

  uint8_t salted[32];
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, EVP_sha256(), 32, salted);
  auto client_key = Hmac(salted, "Client Key");
  uint8_t stored[32];
  SHA256(client_key.data(), 32, stored);
  std::string without_proof = "c=biws,r=" + r;
  std::string auth = client_first_bare + "," + server_first + "," + without_proof;
  auto signature = Hmac(stored, auth);
  std::string proof(32, '\0');
  for (int i = 0; i < 32; ++i) proof[i] = static_cast<char>(client_key[i] ^ signature[i]);
  out.clear();
  EncodeRaw(&out, 'p', without_proof + ",p=" + Base64Encode(proof));
  c.Send(out);
  auto ms = c.ReadUntilReady();
  if (!ms.empty() && ms[0].type == 'R') {
    auto server_key = Hmac(salted, "Server Key");
    auto server_signature = Hmac(server_key.data(), auth);
    std::string expected = "v=" + Base64Encode(std::string_view(
                                      reinterpret_cast<const char*>(server_signature.data()), 32));
    EXPECT_EQ(ms[0].body.substr(4), expected);  // the server proves it knows the password too
  }
  return ms;
}

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.user = "alice";
    options.password = "s3cret pässword";
    server_ = std::make_unique<WireServer>(backend_, options);
    server_->Start();
  }
  test::FakeBackend backend_;
  std::unique_ptr<WireServer> server_;
};

TEST_F(AuthTest, ScramWithTheRightPassword) {
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto ms = ScramLogin(c, "alice", "s3cret pässword");
  ASSERT_GE(ms.size(), 3u);
  EXPECT_EQ(ms[0].body.substr(0, 4), std::string("\0\0\0\x0c", 4));  // SASLFinal
  EXPECT_EQ(ms[1].body, std::string("\0\0\0\0", 4));                 // AuthenticationOk
  EXPECT_EQ(ms.back().type, 'Z');
  EXPECT_EQ(Types(c.Query("select rows 1")), "TDCZ");
}

TEST_F(AuthTest, ScramWithAWrongPasswordOrUser) {
  for (auto [user, password] : {std::pair{"alice", "wrong"}, std::pair{"bob", "s3cret pässword"}}) {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    const auto start = std::chrono::steady_clock::now();
    auto ms = ScramLogin(c, user, password);
    // Guesses are slowed: the answer comes after auth_failure_delay (1 s).
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
    ASSERT_EQ(Types(ms), "E");
    EXPECT_EQ(ErrorField(ms[0], 'S'), "FATAL");
    EXPECT_EQ(ErrorField(ms[0], 'C'), "28P01");
    EXPECT_EQ(ErrorField(ms[0], 'M'),
              std::string("password authentication failed for user \"") + user + "\"");
    EXPECT_TRUE(c.ClosedByServer());
  }
  EXPECT_EQ(backend_.sessions_opened.load(), 0);
}

// A session slot is taken only after authentication: a client stalled in
// its SCRAM exchange does not hold one (it used to, for the whole
// authentication_timeout, so max_connections such sockets locked users out).
TEST_F(AuthTest, StalledScramExchangeTakesNoSessionSlot) {
  server_.reset();
  ServerOptions options;
  options.port = 0;
  options.user = "alice";
  options.password = "s3cret pässword";
  options.max_connections = 1;
  server_ = std::make_unique<WireServer>(backend_, options);
  server_->Start();
  TestClient stalled;
  ASSERT_TRUE(stalled.Connect(server_->port()));
  std::string out;
  EncodeStartupPacket(&out, {kProtocolVersion3, {{"user", "alice"}, {"database", "db"}}});
  stalled.Send(out);
  auto sasl = stalled.Read();
  ASSERT_TRUE(sasl && sasl->type == 'R');  // and never answers it
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto ms = ScramLogin(c, "alice", "s3cret pässword");
  ASSERT_FALSE(ms.empty());
  ASSERT_EQ(ms.back().type, 'Z') << ErrorField(ms[0], 'M');
  EXPECT_EQ(Types(c.Query("select rows 1")), "TDCZ");
  // The one slot is taken now: the next authenticated client is refused.
  TestClient third;
  ASSERT_TRUE(third.Connect(server_->port()));
  ms = ScramLogin(third, "alice", "s3cret pässword");
  ASSERT_FALSE(ms.empty());
  EXPECT_EQ(ErrorField(ms.back(), 'C'), "53300");
  EXPECT_EQ(ErrorField(ms.back(), 'M'), "sorry, too many clients already");
}

// Sockets that send half a startup packet and wait: they hold startup slots
// only, the longest waiting is closed (53300) when a newer connection needs
// one, the rest at authentication_timeout (08P01), and a real client gets in
// at once meanwhile.
TEST(StartupSlots, HalfStartupPacketsDoNotLockClientsOut) {
  test::FakeBackend backend;
  ServerOptions options;
  options.port = 0;
  options.max_connections = 4;
  options.max_startup_connections = 8;
  options.authentication_timeout = std::chrono::milliseconds(2000);
  WireServer server(backend, options);
  server.Start();
  std::string packet;
  EncodeStartupPacket(&packet, {kProtocolVersion3, {{"user", "mallory"}, {"database", "db"}}});
  const std::string half = packet.substr(0, packet.size() / 2);
  std::vector<std::unique_ptr<TestClient>> flood;
  const auto flood_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 30; ++i) {
    flood.push_back(std::make_unique<TestClient>());
    ASSERT_TRUE(flood.back()->Connect(server.port()));
    ASSERT_TRUE(flood.back()->Send(half));
  }
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    TestClient c;
    ASSERT_TRUE(c.Connect(server.port()));
    auto ms = c.Startup();
    ASSERT_FALSE(ms.empty());
    ASSERT_EQ(ms.back().type, 'Z') << ErrorField(ms[0], 'M');
    EXPECT_EQ(Types(c.Query("select rows 1")), "TDCZ");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  }
  EXPECT_LE(server.starting_connections(), 8);
  int evicted = 0;
  int timed_out = 0;
  for (auto& f : flood) {
    auto m = f->Read(5000);
    ASSERT_TRUE(m) << "a half-open socket was not closed by the server";
    const std::string code = ErrorField(*m, 'C');
    if (code == "53300") {
      EXPECT_EQ(ErrorField(*m, 'M'), "sorry, too many clients already");
      evicted++;
    } else {
      EXPECT_EQ(code, "08P01");
      EXPECT_EQ(ErrorField(*m, 'M'), "canceling authentication due to timeout");
      timed_out++;
    }
    EXPECT_TRUE(f->ClosedByServer());
  }
  // 30 sockets through 8 startup slots: 22 made room for later ones, the
  // first real client for one more (the others found a slot given back);
  // the last 7 waited out the timeout.
  EXPECT_EQ(evicted, 23);
  EXPECT_EQ(timed_out, 7);
  const auto all_closed = std::chrono::steady_clock::now() - flood_start;
  EXPECT_LT(all_closed, std::chrono::milliseconds(4000));
  EXPECT_EQ(server.startup_evictions(), 23u);
  EXPECT_EQ(server.starting_connections(), 0);
}

class MalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.max_message_bytes = 1 << 20;
    server_ = std::make_unique<WireServer>(backend_, options);
    server_->Start();
  }
  // Sends `bytes` after a good startup (or instead of it) and expects
  // FATAL `sqlstate`, a closed connection, and a server that still serves.
  void ExpectFatal(const std::string& bytes, const std::string& sqlstate,
                   bool after_startup = true) {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    if (after_startup) {
      ASSERT_EQ(c.Startup().back().type, 'Z');
    }
    c.Send(bytes);
    auto ms = c.ReadUntilReady();
    ASSERT_FALSE(ms.empty());
    EXPECT_EQ(ErrorField(ms.back(), 'S'), "FATAL");
    EXPECT_EQ(ErrorField(ms.back(), 'C'), sqlstate) << ErrorField(ms.back(), 'M');
    EXPECT_TRUE(c.ClosedByServer());
    TestClient ok;
    ASSERT_TRUE(ok.Connect(server_->port()));
    ASSERT_EQ(ok.Startup().back().type, 'Z');
    EXPECT_EQ(Types(ok.Query("select rows 1")), "TDCZ");
  }
  test::FakeBackend backend_;
  std::unique_ptr<WireServer> server_;
};

std::string Raw(char type, uint32_t len, std::string body) {
  std::string out(1, type);
  PutBigEndian(&out, len, 4);
  return out + body;
}

TEST_F(MalformedTest, BadLengths) {
  ExpectFatal(Raw('Q', 3, ""), "08P01");                    // below the length word itself
  ExpectFatal(Raw('Q', 0x7fffffff, "select"), "08P01");     // above the cap: refused unread
  ExpectFatal(Raw('Q', (1 << 20) + 5, "select"), "08P01");  // just above the cap
  std::string big_startup;
  PutBigEndian(&big_startup, 20000, 4);
  PutBigEndian(&big_startup, kProtocolVersion3, 4);
  ExpectFatal(big_startup, "08P01", false);  // startup packet > 10000 bytes
  std::string tiny_startup;
  PutBigEndian(&tiny_startup, 4, 4);
  ExpectFatal(tiny_startup, "08P01", false);
}

TEST_F(MalformedTest, TruncatedAndUnterminated) {
  ExpectFatal(Raw('Q', 12, std::string("select 1")), "08P01");  // string without NUL
  ExpectFatal(Raw('P', 6, std::string("\0\0", 2)), "08P01");    // Parse cut short
  ExpectFatal(Raw('E', 5, std::string("\0", 1)), "08P01");      // Execute without max rows
  ExpectFatal(Raw('D', 5, std::string("X")), "08P01");          // bad Describe kind
  std::string body = std::string("\0s\0", 3);
  PutBigEndian(&body, 0, 2);
  PutBigEndian(&body, 0xffff, 2);  // 65535 parameters announced, none present
  ExpectFatal(Raw('B', static_cast<uint32_t>(body.size() + 4), body), "08P01");
}

TEST_F(MalformedTest, UnknownTypeAndVersion) {
  ExpectFatal(Raw('z', 4, ""), "08P01");
  ExpectFatal(Raw('p', 4, ""), "08P01");  // a password message outside authentication
  std::string v2;
  PutBigEndian(&v2, 8, 4);
  PutBigEndian(&v2, 2 << 16, 4);
  ExpectFatal(v2, "0A000", false);
}

TEST_F(MalformedTest, SilentClientTimesOutDuringStartup) {
  server_.reset();
  ServerOptions options;
  options.port = 0;
  options.authentication_timeout = std::chrono::milliseconds(50);
  server_ = std::make_unique<WireServer>(backend_, options);
  server_->Start();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto m = c.Read();
  ASSERT_TRUE(m);
  EXPECT_EQ(ErrorField(*m, 'C'), "08P01");
  EXPECT_TRUE(c.ClosedByServer());
}

}  // namespace
}  // namespace forktail
