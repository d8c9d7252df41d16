// TLS on SSLRequest: with a certificate and key configured the server answers
// 'S' and psql with sslmode=require talks to it over TLS; without them it
// answers 'N' (sslmode=require gives up, sslmode=prefer goes on in plaintext);
// unreadable files stop the server from starting (F0000). The certificate is
// a throwaway self-signed one made with the openssl command line tool; the
// psql cases skip when psql or openssl is missing.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "server/wire_server.h"
#include "tests/server/e2e_fixture.h"
#include "tests/server/fake_backend.h"
#include "tests/server/test_client.h"

namespace forktail {
namespace {

namespace fs = std::filesystem;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/forktail_tls_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    cert_ = (dir_ / "server.crt").string();
    key_ = (dir_ / "server.key").string();
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }
  bool MakeCertificate() {
    test::CommandResult r = test::RunCommand(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout " + key_ +
        " -out " + cert_);
    return r.exit_code == 0;
  }
  void StartServer(bool tls) {
    ServerOptions options;
    options.port = 0;
    if (tls) {
      options.ssl_cert_file = cert_;
      options.ssl_key_file = key_;
    }
    server_ = std::make_unique<WireServer>(backend_, options);
    server_->Start();
  }
  test::CommandResult Psql(const std::string& sslmode, const std::string& sql) {
    return test::RunCommand("psql -X -At \"host=127.0.0.1 port=" + std::to_string(server_->port()) +
                            " user=tester dbname=db sslmode=" + sslmode + "\" -c '" + sql + "'");
  }

  fs::path dir_;
  std::string cert_;
  std::string key_;
  test::FakeBackend backend_;
  std::unique_ptr<WireServer> server_;
};

TEST_F(TlsTest, PsqlRequiresTlsAndGetsIt) {
  if (test::RunCommand("psql --version").exit_code != 0) GTEST_SKIP() << "psql not installed";
  if (!MakeCertificate()) GTEST_SKIP() << "openssl command line tool not available";
  StartServer(/*tls=*/true);
  test::CommandResult r = Psql("require", "select rows 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "0|row 0\n1|row 1\n2|row 2\n");
  // Large results cross many TLS records.
  r = Psql("require", "select rows 20000");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 500);
  EXPECT_NE(r.output.find("19999|row 19999\n"), std::string::npos);
  // A client that does not ask for TLS still gets plaintext.
  r = Psql("disable", "select rows 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "0|row 0\n");
}

TEST_F(TlsTest, WithoutCertificateSslRequestIsAnsweredN) {
  if (test::RunCommand("psql --version").exit_code != 0) GTEST_SKIP() << "psql not installed";
  StartServer(/*tls=*/false);
  test::CommandResult r = Psql("require", "select rows 1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("server does not support SSL"), std::string::npos) << r.output;
  r = Psql("prefer", "select rows 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "0|row 0\n");
}

TEST_F(TlsTest, SslRequestByHandGetsS) {
  if (!MakeCertificate()) GTEST_SKIP() << "openssl command line tool not available";
  StartServer(/*tls=*/true);
  test::TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  std::string out;
  PutBigEndian(&out, 8, 4);
  PutBigEndian(&out, static_cast<uint32_t>(kSslRequestCode), 4);
  c.Send(out);
  auto answer = c.ReadBytes(1);
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, "S");
}

TEST_F(TlsTest, UnreadableCertificateStopsTheServer) {
  ServerOptions options;
  options.port = 0;
  options.ssl_cert_file = (dir_ / "missing.crt").string();
  options.ssl_key_file = (dir_ / "missing.key").string();
  try {
    WireServer server(backend_, options);
    FAIL() << "expected F0000";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "F0000");
    EXPECT_NE(std::string(e.what()).find("could not load server certificate file"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace forktail
