// Bad frames sent to a live snapshot process get Error 08P01 and lose only
// their own connection: a concurrent request on the same snapshot completes,
// and the process keeps serving.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "test_handler.h"

namespace forktail::testing {
namespace {

int Connect(const std::string& address) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, address.data(), address.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), len), 0) << std::strerror(errno);
  return fd;
}

std::string Header(uint32_t length, uint8_t type, uint8_t version = kFrameVersion) {
  std::string h(kFrameHeaderSize, '\0');
  for (int i = 0; i < 4; ++i) h[i] = static_cast<char>(length >> (8 * i));
  h[4] = static_cast<char>(type);
  h[5] = static_cast<char>(version);
  return h;
}

// Sends raw bytes; expects one Error 08P01 frame whose message contains
// `expect`, then the end of the connection.
void ExpectProtocolError(const std::string& address, const std::string& bytes,
                         const std::string& expect) {
  const int fd = Connect(address);
  ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  Frame f;
  ASSERT_TRUE(ReadFrame(fd, 1u << 20, &f).ok());
  ASSERT_EQ(f.type, FrameType::kError);
  std::string code, message;
  ASSERT_TRUE(DecodeErrorPayload(f.payload, &code, &message).ok());
  EXPECT_EQ(code, snapshot_sqlstate::kProtocolViolation);
  EXPECT_NE(message.find(expect), std::string::npos) << message;
  // Then the connection is closed: EOF, or a reset when our unread bytes were
  // still queued on the child's side.
  const Status end = ReadFrame(fd, 1u << 20, &f);
  EXPECT_TRUE(end.code() == Status::Code::kNotFound || end.code() == Status::Code::kIoError)
      << end.message();
  close(fd);
}

TEST(SnapshotProtocol, BadFramesGetAnErrorAndHarmNothingElse) {
  FakeTxnEngine engine(1);
  engine.Execute([](FakeTable& t) { t.at(0) = 3; });
  SnapshotOptions o;
  o.handler = MakeTestHandler(&engine.table());
  o.max_frame_payload = 1u << 16;
  SnapshotManager manager(&engine, o);
  SnapshotLease lease = manager.Acquire();
  auto concurrent = lease.Start("hang");  // runs through all of the below
  std::string batch;
  ASSERT_TRUE(concurrent->Next(&batch));

  const std::string& address = lease.address();
  ExpectProtocolError(address, Header(0, 99), "unknown frame type 99");
  ExpectProtocolError(address, Header(0, 1, 9), "unsupported frame version 9");
  ExpectProtocolError(address, Header(0xffffffffu, 1), "exceeds the limit of 65536");
  ExpectProtocolError(address, Header(0, 4), "expected a request, got frame type 4");
  ExpectProtocolError(address, Header(3, 4) + "abc", "must have an empty payload");
  ExpectProtocolError(address, Header(4, 3) + "oops", "error frame length 4");
  // A second Request while the first runs.
  ExpectProtocolError(address, Header(4, 1) + "hang" + Header(4, 1) + "hang",
                      "unexpected frame type 1 while a request is running");
  {
    // Garbage that is not even a full header, then the client leaves.
    const int fd = Connect(address);
    ASSERT_EQ(send(fd, "xyz", 3, MSG_NOSIGNAL), 3);
    close(fd);
  }
  // Part frames must end in a Request (or a Batch).
  ExpectProtocolError(address, Header(3, 8) + "abc" + Header(0, 4),
                      "frame type 4 after part frames");
  // A batch over the frame limit is streamed in parts and arrives whole.
  const std::vector<std::string> big = lease.Run("big 200000");
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].size(), 200000u);
  // So is a request over the frame limit (the handler echoes what it cannot parse
  // as an error naming it: the text arrived).
  try {
    lease.Run(std::string(150000, 'q'));
    ADD_FAILURE() << "an unknown request ran";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("qqqq"), std::string::npos) << e.what();
  }
  // The concurrent request is unharmed and the process still serves.
  EXPECT_EQ(lease.Run("sum 1 1"), std::vector<std::string>{"3"});
  concurrent->Cancel();
  try {
    while (concurrent->Next(&batch)) {
    }
    ADD_FAILURE() << "cancel was ignored";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kQueryCanceled);
  }
  EXPECT_EQ(manager.stats().died, 0u);
  EXPECT_EQ(manager.List().at(0).pid, lease.pid());
}

}  // namespace
}  // namespace forktail::testing
