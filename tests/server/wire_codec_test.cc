// The message codec: every frontend message round-trips through its encoder
// and decoder, every backend message decodes field by field, and every
// malformed body (truncation, missing NUL, bad counts, trailing bytes, bad
// subtype) throws ProtocolError instead of reading out of bounds.
#include <gtest/gtest.h>

#include "server/messages.h"
#include "tests/server/test_client.h"

namespace forktail {
namespace {

// Splits one encoded message into type and body, checking the length word.
std::pair<char, std::string> Frame(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 5u);
  auto len = static_cast<uint32_t>(GetBigEndian(std::string_view(bytes).substr(1, 4)));
  EXPECT_EQ(len + 1, bytes.size());
  return {bytes[0], bytes.substr(5)};
}

TEST(WireCodec, StartupPacketRoundTrip) {
  StartupPacket p{kProtocolVersion3,
                  {{"user", "alice"}, {"database", "db"}, {"options", "-c x=1"}}};
  std::string out;
  EncodeStartupPacket(&out, p);
  auto len = static_cast<uint32_t>(GetBigEndian(std::string_view(out).substr(0, 4)));
  ASSERT_EQ(len, out.size());
  StartupPacket q = DecodeStartupPacket(std::string_view(out).substr(4));
  EXPECT_EQ(q.code, kProtocolVersion3);
  EXPECT_EQ(q.parameters, p.parameters);

  out.clear();
  EncodeStartupPacket(&out, {kCancelRequestCode, {}, 1234, -55});
  q = DecodeStartupPacket(std::string_view(out).substr(4));
  EXPECT_EQ(q.code, kCancelRequestCode);
  EXPECT_EQ(q.cancel_pid, 1234);
  EXPECT_EQ(q.cancel_key, -55);

  out.clear();
  EncodeStartupPacket(&out, {kSslRequestCode});
  EXPECT_EQ(out.size(), 8u);
  EXPECT_EQ(DecodeStartupPacket(std::string_view(out).substr(4)).code, kSslRequestCode);
}

TEST(WireCodec, StartupPacketMalformed) {
  std::string out;
  EncodeStartupPacket(&out, {kProtocolVersion3, {{"user", "alice"}}});
  std::string body = out.substr(4);
  // Without the final NUL of the list / in the middle of a value.
  EXPECT_THROW(DecodeStartupPacket(body.substr(0, body.size() - 1)), ProtocolError);
  EXPECT_THROW(DecodeStartupPacket(body.substr(0, body.size() - 3)), ProtocolError);
  EXPECT_THROW(DecodeStartupPacket(body + "x"), ProtocolError);
  EXPECT_THROW(DecodeStartupPacket(std::string("\x04\xd2", 2)), ProtocolError);  // short code
  std::string cancel;
  EncodeStartupPacket(&cancel, {kCancelRequestCode, {}, 1, 2});
  EXPECT_THROW(DecodeStartupPacket(cancel.substr(4, 8)), ProtocolError);
}

TEST(WireCodec, ParseRoundTrip) {
  ParseMessage p{"stmt1", "select $1, $2", {23, 0}};
  std::string out;
  EncodeParse(&out, p);
  auto [type, body] = Frame(out);
  EXPECT_EQ(type, 'P');
  ParseMessage q = DecodeParse(body);
  EXPECT_EQ(q.statement, "stmt1");
  EXPECT_EQ(q.query, "select $1, $2");
  EXPECT_EQ(q.parameter_oids, (std::vector<int32_t>{23, 0}));
}

TEST(WireCodec, BindRoundTrip) {
  BindMessage b{
      "portal", "stmt", {0, 1}, {std::string("12"), std::nullopt, std::string("\0\1", 2)}, {1}};
  std::string out;
  EncodeBind(&out, b);
  auto [type, body] = Frame(out);
  EXPECT_EQ(type, 'B');
  BindMessage c = DecodeBind(body);
  EXPECT_EQ(c.portal, "portal");
  EXPECT_EQ(c.statement, "stmt");
  EXPECT_EQ(c.parameter_formats, b.parameter_formats);
  EXPECT_EQ(c.parameters, b.parameters);
  EXPECT_EQ(c.result_formats, b.result_formats);
}

TEST(WireCodec, DescribeCloseExecuteQueryRoundTrip) {
  std::string out;
  EncodeDescribe(&out, 'D', {'P', "p1"});
  auto [t1, b1] = Frame(out);
  EXPECT_EQ(t1, 'D');
  DescribeMessage d = DecodeDescribe(b1);
  EXPECT_EQ(d.kind, 'P');
  EXPECT_EQ(d.name, "p1");

  out.clear();
  EncodeDescribe(&out, 'C', {'S', ""});
  auto [t2, b2] = Frame(out);
  EXPECT_EQ(t2, 'C');
  EXPECT_EQ(DecodeDescribe(b2).kind, 'S');

  out.clear();
  EncodeExecute(&out, {"p1", 10});
  auto [t3, b3] = Frame(out);
  EXPECT_EQ(t3, 'E');
  EXPECT_EQ(DecodeExecute(b3).portal, "p1");
  EXPECT_EQ(DecodeExecute(b3).max_rows, 10);

  out.clear();
  EncodeQuery(&out, "select 1");
  auto [t4, b4] = Frame(out);
  EXPECT_EQ(t4, 'Q');
  EXPECT_EQ(DecodeQuery(b4), "select 1");

  for (char c : std::string("SHXcd")) {
    out.clear();
    EncodeRaw(&out, c, c == 'd' ? "1\t2\n" : "");
    auto [t, b] = Frame(out);
    EXPECT_EQ(t, c);
    EXPECT_EQ(b, c == 'd' ? "1\t2\n" : "");
  }
}

TEST(WireCodec, SaslInitialResponse) {
  std::string body = std::string("SCRAM-SHA-256") + '\0';
  std::string data = "n,,n=,r=abc";
  PutBigEndian(&body, data.size(), 4);
  body += data;
  SaslInitialResponse m = DecodeSaslInitialResponse(body);
  EXPECT_EQ(m.mechanism, "SCRAM-SHA-256");
  EXPECT_EQ(m.data, data);
  EXPECT_THROW(DecodeSaslInitialResponse(body.substr(0, body.size() - 1)), ProtocolError);
}

TEST(WireCodec, BackendMessages) {
  std::string out;
  EncodeRowDescription(&out, {{"a", 23, 4, -1, 0}, {"num", 1700, -1, 655366, 1}});
  auto [t, b] = Frame(out);
  EXPECT_EQ(t, 'T');
  WireReader r(b);
  EXPECT_EQ(r.ReadInt16(), 2);
  EXPECT_EQ(r.ReadString(), "a");
  EXPECT_EQ(r.ReadInt32(), 0);
  EXPECT_EQ(r.ReadInt16(), 0);
  EXPECT_EQ(r.ReadInt32(), 23);
  EXPECT_EQ(r.ReadInt16(), 4);
  EXPECT_EQ(r.ReadInt32(), -1);
  EXPECT_EQ(r.ReadInt16(), 0);
  EXPECT_EQ(r.ReadString(), "num");
  r.ReadInt32();
  r.ReadInt16();
  EXPECT_EQ(r.ReadInt32(), 1700);
  EXPECT_EQ(r.ReadInt16(), -1);
  EXPECT_EQ(r.ReadInt32(), 655366);
  EXPECT_EQ(r.ReadInt16(), 1);
  EXPECT_TRUE(r.AtEnd());

  out.clear();
  EncodeDataRow(&out, {std::string("1"), std::nullopt, std::string("")});
  test::BackendMessage row{'D', Frame(out).second};
  auto values = test::DataRowValues(row);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], "1");
  EXPECT_FALSE(values[1]);
  EXPECT_EQ(values[2], "");

  out.clear();
  ErrorFields f;
  f.sqlstate = "42601";
  f.message = "syntax error at or near \"x\"";
  f.position = 8;
  EncodeErrorResponse(&out, 'E', f);
  test::BackendMessage err{'E', Frame(out).second};
  EXPECT_EQ(test::ErrorField(err, 'S'), "ERROR");
  EXPECT_EQ(test::ErrorField(err, 'V'), "ERROR");
  EXPECT_EQ(test::ErrorField(err, 'C'), "42601");
  EXPECT_EQ(test::ErrorField(err, 'M'), f.message);
  EXPECT_EQ(test::ErrorField(err, 'P'), "8");

  out.clear();
  EncodeReadyForQuery(&out, 'T');
  EXPECT_EQ(out, std::string("Z\0\0\0\5T", 6));
  out.clear();
  EncodeCommandComplete(&out, "SELECT 3");
  EXPECT_EQ(Frame(out).second, std::string("SELECT 3\0", 9));
  out.clear();
  EncodeParameterStatus(&out, "TimeZone", "UTC");
  EXPECT_EQ(Frame(out).second, std::string("TimeZone\0UTC\0", 13));
  out.clear();
  EncodeBackendKeyData(&out, 7, 9);
  EXPECT_EQ(Frame(out).second, std::string("\0\0\0\7\0\0\0\x9", 8));
  out.clear();
  EncodeParameterDescription(&out, {23, 25});
  EXPECT_EQ(Frame(out).second, std::string("\0\2\0\0\0\x17\0\0\0\x19", 10));
  out.clear();
  EncodeCopyInResponse(&out, 2);
  EXPECT_EQ(Frame(out).second, std::string("\0\0\2\0\0\0\0", 7));
  out.clear();
  EncodeAuthentication(&out, 0);
  EXPECT_EQ(out, std::string("R\0\0\0\x8\0\0\0\0", 9));
  for (char c : std::string("123nsI")) {
    out.clear();
    EncodeEmpty(&out, c);
    EXPECT_EQ(out, std::string(1, c) + std::string("\0\0\0\4", 4));
  }
}

TEST(WireCodec, MalformedBodiesThrow) {
  std::string out;
  EncodeParse(&out, {"s", "select 1", {23}});
  std::string parse = Frame(out).second;
  // Every strict prefix is truncated; a trailing byte is garbage.
  for (size_t n = 0; n < parse.size(); ++n) {
    EXPECT_THROW(DecodeParse(parse.substr(0, n)), ProtocolError) << n;
  }
  EXPECT_THROW(DecodeParse(parse + "x"), ProtocolError);

  out.clear();
  EncodeBind(&out, {"", "s", {1}, {std::string("abcd")}, {0}});
  std::string bind = Frame(out).second;
  for (size_t n = 0; n < bind.size(); ++n) {
    EXPECT_THROW(DecodeBind(bind.substr(0, n)), ProtocolError) << n;
  }
  // A parameter length beyond the message, and below -1.
  std::string bad = bind;
  bad[bind.size() - 12] = 0x7f;
  EXPECT_THROW(DecodeBind(bad), ProtocolError);
  bad = bind;
  for (int i = 0; i < 4; ++i) bad[bind.size() - 12 + i] = static_cast<char>(0xfe);
  EXPECT_THROW(DecodeBind(bad), ProtocolError);
  // A parameter count the message cannot hold (too many parameters).
  std::string many = std::string("\0s\0\0\0", 5) + "\xff\xff";
  EXPECT_THROW(DecodeBind(many), ProtocolError);

  EXPECT_THROW(DecodeQuery("select 1"), ProtocolError);  // no NUL
  EXPECT_THROW(DecodeQuery(std::string("a\0b", 3)), ProtocolError);
  EXPECT_THROW(DecodeDescribe(std::string("X\0", 2)), ProtocolError);
  EXPECT_THROW(DecodeDescribe(std::string("S", 1)), ProtocolError);
  EXPECT_THROW(DecodeExecute(std::string("\0\0\0", 3)), ProtocolError);
}

}  // namespace
}  // namespace forktail
