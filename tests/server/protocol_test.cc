// The wire protocol end to end over loopback TCP against a scripted backend
// (fake_backend.h): startup, simple and extended query, COPY, cancel, limits,
// shutdown.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "server/wire_server.h"
#include "tests/server/fake_backend.h"
#include "tests/server/test_client.h"

namespace forktail {
namespace {

using test::BackendMessage;
using test::Bind;
using test::DataRowValues;
using test::Describe;
using test::ErrorField;
using test::Execute;
using test::Msg;
using test::Parse;
using test::Sync;
using test::TestClient;
using test::Types;

class ProtocolTest : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options = {}) {
    options.port = 0;
    server_ = std::make_unique<WireServer>(backend_, options);
    server_->Start();
  }
  void SetUp() override { StartServer(); }

  std::unique_ptr<TestClient> Connect() {
    auto c = std::make_unique<TestClient>();
    EXPECT_TRUE(c->Connect(server_->port()));
    auto ms = c->Startup();
    EXPECT_FALSE(ms.empty());
    if (!ms.empty()) {
      EXPECT_EQ(ms.back().type, 'Z');
    }
    return c;
  }

  test::FakeBackend backend_;
  std::unique_ptr<WireServer> server_;
};

std::string Send(TestClient& c, std::initializer_list<std::string> parts) {
  std::string all;
  for (const auto& p : parts) all += p;
  c.Send(all);
  return all;
}

TEST_F(ProtocolTest, StartupAnswersSslAndReportsParameters) {
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  std::string ssl;
  EncodeStartupPacket(&ssl, {kSslRequestCode});
  c.Send(ssl);
  EXPECT_EQ(c.ReadBytes(1), "N");
  std::string gss;
  EncodeStartupPacket(&gss, {kGssEncRequestCode});
  c.Send(gss);
  EXPECT_EQ(c.ReadBytes(1), "N");
  auto ms = c.Startup();
  ASSERT_GE(ms.size(), 3u);
  EXPECT_EQ(ms[0].type, 'R');
  EXPECT_EQ(ms[0].body, std::string(4, '\0'));
  std::map<std::string, std::string> params;
  for (const auto& m : ms) {
    if (m.type != 'S') continue;
    WireReader r(m.body);
    std::string name(r.ReadString());
    params[name] = r.ReadString();
  }
  EXPECT_EQ(params["server_version"].substr(0, 3), "15.");
  EXPECT_EQ(params["client_encoding"], "UTF8");
  EXPECT_EQ(params["DateStyle"], "ISO, MDY");
  EXPECT_EQ(params["integer_datetimes"], "on");
  EXPECT_EQ(params["standard_conforming_strings"], "on");
  EXPECT_EQ(params["TimeZone"], "UTC");
  EXPECT_EQ(params["session_authorization"], "tester");
  EXPECT_EQ(params["IntervalStyle"], "postgres");
  EXPECT_NE(test::FindMessage(ms, 'K'), nullptr);
  EXPECT_EQ(ms.back().body, "I");
}

TEST_F(ProtocolTest, SimpleQueryRowsErrorsAndTransactionStatus) {
  auto c = Connect();
  auto ms = c->Query("select rows 3");
  EXPECT_EQ(Types(ms), "TDDDCZ");
  EXPECT_EQ(DataRowValues(ms[2])[1], "row 1");
  EXPECT_EQ(ms[4].body, std::string("SELECT 3\0", 9));
  EXPECT_EQ(c->Query("begin").back().body, "T");
  ms = c->Query("select error");
  EXPECT_EQ(Types(ms), "EZ");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "42601");
  EXPECT_EQ(ErrorField(ms[0], 'P'), "8");
  EXPECT_EQ(ErrorField(ms[0], 'S'), "ERROR");
  EXPECT_EQ(ms[1].body, "E");
  ms = c->Query("select rows 1");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "25P02");
  EXPECT_EQ(c->Query("rollback").back().body, "I");
}

TEST_F(ProtocolTest, MultipleStatementsNoticesAndEmptyQuery) {
  auto c = Connect();
  EXPECT_EQ(Types(c->Query("select rows 1; notice; insert into t")), "TDCNCCZ");
  EXPECT_EQ(Types(c->Query(";")), "IZ");
  EXPECT_EQ(Types(c->Query("")), "IZ");
  // Results before the failing statement still arrive.
  EXPECT_EQ(Types(c->Query("select rows 1; select error; select rows 2")), "TDCEZ");
  // Pipelined queries in one write.
  std::string two;
  EncodeQuery(&two, "select rows 1");
  EncodeQuery(&two, "select rows 2");
  c->Send(two);
  EXPECT_EQ(Types(c->ReadUntilReady()), "TDCZ");
  EXPECT_EQ(Types(c->ReadUntilReady()), "TDDCZ");
}

TEST_F(ProtocolTest, ExtendedQueryWithRowLimitAndBinaryResults) {
  auto c = Connect();
  Send(*c, {Parse("s1", "select rows 5"), Describe('S', "s1"), Bind({"p1", "s1", {}, {}, {1}}),
            Describe('P', "p1"), Execute("p1", 2), Execute("p1", 2), Execute("p1", 2),
            Execute("p1", 2), Sync()});
  auto ms = c->ReadUntilReady();
  EXPECT_EQ(Types(ms), "1tT2TDDsDDsDCCZ");
  EXPECT_EQ(DataRowValues(ms[5])[0], std::string("\0\0\0\0", 4));
  EXPECT_EQ(DataRowValues(ms[6])[0], std::string("\0\0\0\1", 4));
  EXPECT_EQ(DataRowValues(ms[11])[0], std::string("\0\0\0\4", 4));
  EXPECT_EQ(ms[12].body, std::string("SELECT 1\0", 9));
  EXPECT_EQ(ms[13].body, std::string("SELECT 0\0", 9));
  // The named statement survives Sync; a new unnamed portal reuses it.
  Send(*c, {Bind({"", "s1", {}, {}, {}}), Execute(""), Sync()});
  EXPECT_EQ(Types(c->ReadUntilReady()), "2DDDDDCZ");
}

TEST_F(ProtocolTest, BinaryAndTextParametersAsPsycopgSendsThem) {
  auto c = Connect();
  // From clients/psycopg.trace: int2, int8, float8 and date binary; numeric and text as text.
  Send(*c, {Parse("", "select echo $1 $2 $3 $4 $5 $6", {21, 20, 701, 1700, 0, 1082}),
            Bind({"",
                  "",
                  {1, 1, 1, 0, 0, 1},
                  {std::string("\0)", 2), std::string("\0\0\1\0\0\0\0\0", 8),
                   std::string("?\xf8\0\0\0\0\0\0", 8), std::string("3.14"), std::string("hello"),
                   std::string("\0\0\"?", 4)},
                  {0}}),
            Describe('P', ""), Execute(""), Sync()});
  auto ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "12TDCZ");
  auto row = DataRowValues(ms[3]);
  EXPECT_EQ(row[0], "41");
  EXPECT_EQ(row[1], "1099511627776");
  EXPECT_EQ(row[2], "1.5");
  EXPECT_EQ(row[3], "3.14");  // an unconstrained numeric parameter keeps its scale
  EXPECT_EQ(row[4], "hello");
  EXPECT_EQ(row[5], "2024-01-02");
  // NULL parameter, binary results of every type.
  Send(*c, {Parse("", "select types"), Bind({"", "", {}, {}, {1}}), Execute(""), Sync()});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "12DDCZ");
  row = DataRowValues(ms[2]);
  EXPECT_EQ(row[0], std::string("\1", 1));
  EXPECT_EQ(row[2], std::string("\0\0\0*", 4));
  EXPECT_EQ(row[5], std::string("\0\2\0\0\x40\0\0\2\0\x0c\x0d\x48", 12));  // -12.34
  EXPECT_EQ(row[8], "hello");
  for (const auto& v : DataRowValues(ms[3])) EXPECT_FALSE(v);
}

TEST_F(ProtocolTest, NumericParametersKeepTheirOwnScaleAsPgJdbcSendsThem) {
  auto c = Connect();
  // pgJDBC sends BigDecimal as binary numeric (OID 1700, typmod -1); PostgreSQL
  // echoes each value with its own scale, whatever the previous Bind brought.
  const std::string k12_30("\0\2\0\0\0\0\0\2\0\x0c\x0b\xb8", 12);     // 12.30
  const std::string kMinus1_5("\0\2\0\0\x40\0\0\1\0\1\x13\x88", 12);  // -1.5
  Send(*c, {Parse("s", "select echo $1 $2", {1700, 1700})});
  for (int round = 0; round < 2; ++round) {
    Send(*c, {Bind({"", "s", {1}, {k12_30, kMinus1_5}, {}}), Describe('P', ""), Execute(""),
              Bind({"", "s", {1, 0}, {kMinus1_5, std::string("7")}, {1}}), Execute(""),
              Bind({"", "s", {0}, {std::nullopt, std::string("0.125")}, {}}), Execute(""), Sync()});
    auto ms = c->ReadUntilReady();
    ASSERT_EQ(Types(ms), round == 0 ? "12TDC2DC2DCZ" : "2TDC2DC2DCZ");
    size_t at = round == 0 ? 1 : 0;
    auto row = DataRowValues(ms[at + 2]);
    EXPECT_EQ(row[0], "12.30");
    EXPECT_EQ(row[1], "-1.5");
    row = DataRowValues(ms[at + 5]);
    EXPECT_EQ(row[0], kMinus1_5);
    EXPECT_EQ(row[1], std::string("\0\1\0\0\0\0\0\0\0\7", 10));  // 7, dscale 0
    row = DataRowValues(ms[at + 8]);
    EXPECT_FALSE(row[0]);
    EXPECT_EQ(row[1], "0.125");
  }
}

TEST_F(ProtocolTest, DescribeStatementBeforeBindAndClose) {
  auto c = Connect();
  Send(*c, {Parse("s2", "select echo $1", {23}), Describe('S', "s2"), Sync()});
  auto ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "1tTZ");
  EXPECT_EQ(ms[1].body, std::string("\0\1\0\0\0\x17", 6));
  std::string close;
  EncodeDescribe(&close, 'C', {'S', "s2"});
  Send(*c, {close, Describe('S', "s2"), Execute("nope"), Sync()});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "3EZ");  // the error skips Execute up to Sync
  EXPECT_EQ(ErrorField(ms[1], 'C'), "26000");
  // Duplicate names, parameter count mismatch, missing portal.
  Send(*c, {Parse("s3", "select rows 1"), Parse("s3", "select rows 1"), Sync()});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "1EZ");
  EXPECT_EQ(ErrorField(ms[1], 'C'), "42P05");
  Send(*c, {Parse("", "select echo $1"), Bind({"", "", {}, {}, {}}), Sync()});
  ms = c->ReadUntilReady();
  EXPECT_EQ(ErrorField(ms[1], 'C'), "08P01");
  Send(*c, {Execute("nope"), Sync()});
  EXPECT_EQ(ErrorField(c->ReadUntilReady()[0], 'C'), "34000");
  // An empty query string.
  Send(*c, {Parse("", ""), Bind({"", "", {}, {}, {}}), Describe('P', ""), Execute(""), Sync()});
  EXPECT_EQ(Types(c->ReadUntilReady()), "12nIZ");
  // Still a working connection.
  EXPECT_EQ(Types(c->Query("select rows 1")), "TDCZ");
}

TEST_F(ProtocolTest, BadBinaryParameterIsAnErrorNotAFatal) {
  auto c = Connect();
  Send(*c, {Parse("", "select echo $1", {23}), Bind({"", "", {1}, {std::string("abc")}, {}}),
            Execute(""), Sync()});
  auto ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "1EZ");
  EXPECT_EQ(ErrorField(ms[1], 'C'), "22P03");
  EXPECT_EQ(ErrorField(ms[1], 'M'), "incorrect binary data format in bind parameter 1");
  EXPECT_EQ(Types(c->Query("select rows 1")), "TDCZ");
}

TEST_F(ProtocolTest, CopyFromStdin) {
  auto c = Connect();
  c->Send([] {
    std::string q;
    EncodeQuery(&q, "copy t from stdin");
    return q;
  }());
  auto g = c->Read();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->type, 'G');
  Send(*c, {Msg('d', "1\n2\n"), Msg('d', "3\n"), Msg('c')});
  auto ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "CZ");
  EXPECT_EQ(ms[0].body, std::string("COPY 3\0", 7));
  {
    std::lock_guard<std::mutex> lock(backend_.mu);
    EXPECT_EQ(backend_.copied_lines, (std::vector<std::string>{"1", "2", "3"}));
  }
  // CopyFail.
  std::string q;
  EncodeQuery(&q, "copy t from stdin");
  Send(*c, {q, Msg('d', "4\n"), Msg('f', std::string("stop\0", 5))});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "GEZ");
  EXPECT_EQ(ErrorField(ms[1], 'C'), "57014");
  EXPECT_EQ(ErrorField(ms[1], 'M'), "COPY from stdin failed: stop");
  // Bad data: the error comes after CopyDone; later CopyData is ignored.
  Send(*c, {q, Msg('d', "bad\n"), Msg('d', "5\n"), Msg('c')});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "GEZ");
  EXPECT_EQ(ErrorField(ms[1], 'C'), "22P02");
  EXPECT_EQ(Types(c->Query("select rows 1")), "TDCZ");
}

// COPY TO STDOUT: CopyOutResponse (text, one column), a CopyData per
// message, CopyDone, CommandComplete; binary COPY FROM says so in its
// CopyInResponse.
TEST_F(ProtocolTest, CopyOutAndBinaryCopyIn) {
  auto c = Connect();
  auto ms = c->Query("copy t to stdout");
  ASSERT_EQ(Types(ms), "HddcCZ");
  EXPECT_EQ(ms[0].body, std::string("\0\0\1\0\0", 5));
  EXPECT_EQ(ms[1].body, "1\n");
  EXPECT_EQ(ms[2].body, "2\n");
  EXPECT_EQ(ms[4].body, std::string("COPY 2\0", 7));
  // The same through the extended protocol.
  BindMessage bind;
  Send(*c, {Parse("", "copy t to stdout"), Bind(bind), Execute(""), Msg('S')});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "12HddcCZ");
  std::string q;
  EncodeQuery(&q, "copy binary from stdin");
  c->Send(q);
  auto g = c->Read();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->type, 'G');
  EXPECT_EQ(g->body, std::string("\1\0\2\0\1\0\1", 7));
  Send(*c, {Msg('c')});
  EXPECT_EQ(Types(c->ReadUntilReady()), "CZ");
}

// A BINARY cursor's FETCH answers in binary in the simple protocol; a
// DECLAREd cursor is a portal for Describe and Close.
TEST_F(ProtocolTest, CursorsAsPortals) {
  auto c = Connect();
  auto ms = c->Query("fetch binary");
  ASSERT_EQ(Types(ms), "TDCZ");
  WireReader t(ms[0].body);
  ASSERT_EQ(t.ReadInt16(), 1);
  t.ReadString();
  t.ReadInt32();
  t.ReadInt16();
  EXPECT_EQ(t.ReadInt32(), 23);  // int4
  t.ReadInt16();
  t.ReadInt32();
  EXPECT_EQ(t.ReadInt16(), 1);  // binary
  EXPECT_EQ(ms[1].body, std::string("\0\1\0\0\0\4\0\0\0\7", 10));

  Send(*c, {Describe('P', "cur"), Msg('S')});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "EZ");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "34000");
  EXPECT_EQ(Types(c->Query("declare cur")), "CZ");
  Send(*c, {Describe('P', "cur"), Msg('S')});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "TZ");
  std::string close;
  EncodeDescribe(&close, 'C', {'P', "cur"});
  Send(*c, {close, Describe('P', "cur"), Msg('S')});
  ms = c->ReadUntilReady();
  ASSERT_EQ(Types(ms), "3EZ");
}

TEST_F(ProtocolTest, CancelRequestCancelsTheRunningStatement) {
  TestClient a;
  ASSERT_TRUE(a.Connect(server_->port()));
  auto ms = a.Startup();
  const BackendMessage* key = test::FindMessage(ms, 'K');
  ASSERT_NE(key, nullptr);
  WireReader r(key->body);
  int32_t pid = r.ReadInt32();
  int32_t secret = r.ReadInt32();
  std::string q;
  EncodeQuery(&q, "sleep");
  a.Send(q);
  while (backend_.sleeping.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // A wrong key is ignored.
  TestClient wrong;
  ASSERT_TRUE(wrong.Connect(server_->port()));
  std::string cancel;
  EncodeStartupPacket(&cancel, {kCancelRequestCode, {}, pid, secret + 1});
  wrong.Send(cancel);
  EXPECT_TRUE(wrong.ClosedByServer());
  EXPECT_FALSE(a.Read(100));
  TestClient b;
  ASSERT_TRUE(b.Connect(server_->port()));
  cancel.clear();
  EncodeStartupPacket(&cancel, {kCancelRequestCode, {}, pid, secret});
  b.Send(cancel);
  ms = a.ReadUntilReady();
  ASSERT_EQ(Types(ms), "EZ");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "57014");
}

TEST_F(ProtocolTest, ParameterStatusAfterSet) {
  auto c = Connect();
  auto ms = c->Query("set application_name = myapp");
  ASSERT_EQ(Types(ms), "CSZ");
  EXPECT_EQ(ms[1].body, std::string("application_name\0myapp\0", 23));
}

TEST_F(ProtocolTest, UnknownDatabaseIsFatal) {
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto ms = c.Startup("tester", "nosuchdb");
  ASSERT_EQ(Types(ms), "E");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "3D000");
  EXPECT_EQ(ErrorField(ms[0], 'S'), "FATAL");
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(ProtocolTest, ConnectionLimit) {
  server_.reset();
  ServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  auto a = Connect();
  auto b = Connect();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto ms = c.Startup();
  ASSERT_EQ(Types(ms), "E");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "53300");
  EXPECT_EQ(ErrorField(ms[0], 'M'), "sorry, too many clients already");
  EXPECT_TRUE(c.ClosedByServer());
  a->Send(Msg('X'));
  EXPECT_TRUE(a->ClosedByServer());
  // The slot frees once the first connection's thread has left.
  for (int i = 0; i < 2000 && server_->active_sessions() > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto d = Connect();
  EXPECT_EQ(Types(d->Query("select rows 1")), "TDCZ");
}

TEST_F(ProtocolTest, ShutdownTerminatesIdleAndCancelsRunningSessions) {
  auto idle = Connect();
  auto busy = Connect();
  std::string q;
  EncodeQuery(&q, "sleep");
  busy->Send(q);
  while (backend_.sleeping.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->Stop();
  auto m = idle->Read();
  ASSERT_TRUE(m);
  EXPECT_EQ(ErrorField(*m, 'C'), "57P01");
  EXPECT_TRUE(idle->ClosedByServer());
  auto ms = busy->ReadUntilReady();
  ASSERT_FALSE(ms.empty());
  EXPECT_EQ(ErrorField(ms[0], 'C'), "57014");
  EXPECT_TRUE(busy->ClosedByServer());
  TestClient late;
  EXPECT_FALSE(late.Connect(server_->port()));
}

// A client that sends without a pause (a long COPY, a pipeline) never
// leaves the server waiting for input; the shutdown must reach it anyway.
TEST_F(ProtocolTest, ShutdownEndsAConnectionWhoseClientNeverPauses) {
  auto streaming = Connect();
  std::string flushes;
  for (int i = 0; i < 4096; i++) flushes += Msg('H');  // Flush: no reply while nothing is pending
  std::atomic<bool> closed{false};
  std::thread sender([&] {
    while (streaming->Send(flushes)) {
    }
    closed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server_->Stop();  // returns once every connection has ended
  sender.join();
  EXPECT_TRUE(closed.load());
}

}  // namespace
}  // namespace forktail
