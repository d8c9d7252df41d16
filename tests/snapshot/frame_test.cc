// The framed protocol: encoding, header checks, truncation, error payloads.
#include "snapshot/frame.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace forktail {
namespace {

class SocketPair : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    for (int fd : fds_) {
      if (fd >= 0) close(fd);
    }
  }
  void WriteRaw(const std::string& bytes) {
    ASSERT_EQ(write(fds_[0], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void CloseWriter() {
    close(fds_[0]);
    fds_[0] = -1;
  }
  int fds_[2] = {-1, -1};
};

std::string Header(uint32_t length, uint8_t type, uint8_t version = kFrameVersion,
                   uint8_t reserved = 0) {
  std::string h(kFrameHeaderSize, '\0');
  for (int i = 0; i < 4; ++i) h[i] = static_cast<char>(length >> (8 * i));
  h[4] = static_cast<char>(type);
  h[5] = static_cast<char>(version);
  h[6] = static_cast<char>(reserved);
  return h;
}

Status Decode(const std::string& header, uint32_t max = 1024) {
  FrameHeader h;
  return DecodeFrameHeader(reinterpret_cast<const uint8_t*>(header.data()), max, &h);
}

TEST(Frame, RoundTripOverASocket) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const std::string big(100000, 'x');
  ASSERT_TRUE(WriteFrame(fds[0], FrameType::kBatch, big).ok());
  ASSERT_TRUE(WriteFrame(fds[0], FrameType::kDone, {}).ok());
  Frame f;
  ASSERT_TRUE(ReadFrame(fds[1], 1u << 20, &f).ok());
  EXPECT_EQ(f.type, FrameType::kBatch);
  EXPECT_EQ(f.payload, big);
  ASSERT_TRUE(ReadFrame(fds[1], 1u << 20, &f).ok());
  EXPECT_EQ(f.type, FrameType::kDone);
  EXPECT_TRUE(f.payload.empty());
  close(fds[0]);
  EXPECT_EQ(ReadFrame(fds[1], 1u << 20, &f).code(), Status::Code::kNotFound);
  close(fds[1]);
}

TEST(Frame, MessagesLargerThanAFrameTravelAsParts) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  std::string big(5 * 4096 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  std::thread writer([&] {
    EXPECT_TRUE(WriteMessage(fds[0], FrameType::kRequest, big, 4096).ok());
    EXPECT_TRUE(WriteMessage(fds[0], FrameType::kBatch, "small", 4096).ok());
    EXPECT_TRUE(WriteFrame(fds[0], FrameType::kDone, {}).ok());
  });
  Frame f;
  ASSERT_TRUE(ReadMessage(fds[1], 4096, 1u << 20, &f).ok());
  EXPECT_EQ(f.type, FrameType::kRequest);
  EXPECT_EQ(f.payload, big);
  ASSERT_TRUE(ReadMessage(fds[1], 4096, 1u << 20, &f).ok());
  EXPECT_EQ(f.type, FrameType::kBatch);
  EXPECT_EQ(f.payload, "small");
  ASSERT_TRUE(ReadMessage(fds[1], 4096, 1u << 20, &f).ok());
  EXPECT_EQ(f.type, FrameType::kDone);
  writer.join();
  // A plain frame reader sees the parts as frames of their own, each bounded.
  writer =
      std::thread([&] { EXPECT_TRUE(WriteMessage(fds[0], FrameType::kBatch, big, 4096).ok()); });
  ASSERT_TRUE(ReadFrame(fds[1], 4096, &f).ok());
  EXPECT_EQ(f.type, FrameType::kPart);
  EXPECT_EQ(f.payload.size(), 4096u);
  EXPECT_EQ(ReadMessage(fds[1], 4096, 1u << 20, &f).ok(), true);  // the rest
  EXPECT_EQ(f.payload.size(), big.size() - 4096);
  writer.join();
  close(fds[0]);
  close(fds[1]);
}

TEST_F(SocketPair, PartsMustEndInARequestOrBatchWithinTheMessageLimit) {
  WriteRaw(Header(3, 8) + "abc" + Header(0, 4));  // parts, then Done
  Frame f;
  EXPECT_EQ(ReadMessage(fds_[1], 1024, 1024, &f).message(), "frame type 4 after part frames");
  WriteRaw(Header(600, 8) + std::string(600, 'p') + Header(600, 8) + std::string(600, 'p'));
  EXPECT_EQ(ReadMessage(fds_[1], 1024, 1000, &f).message(), "message of more than 1000 bytes");
  WriteRaw(Header(2, 8) + "ab");  // then the writer leaves
  CloseWriter();
  EXPECT_EQ(ReadMessage(fds_[1], 1024, 1024, &f).code(), Status::Code::kIoError);
}

TEST(Frame, HeaderChecks) {
  EXPECT_TRUE(Decode(Header(10, 1)).ok());
  EXPECT_EQ(Decode(Header(10, 1, 2)).message(), "unsupported frame version 2");
  EXPECT_EQ(Decode(Header(10, 1, kFrameVersion, 1)).message(), "nonzero reserved frame bytes");
  EXPECT_EQ(Decode(Header(0, 0)).message(), "unknown frame type 0");
  EXPECT_EQ(Decode(Header(0, 9)).message(), "unknown frame type 9");
  EXPECT_EQ(Decode(Header(0, 255)).message(), "unknown frame type 255");
  EXPECT_EQ(Decode(Header(1025, 2)).message(), "frame length 1025 exceeds the limit of 1024");
  EXPECT_EQ(Decode(Header(0xffffffffu, 2)).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Decode(Header(1, 4)).message(), "frame type 4 must have an empty payload");
  EXPECT_EQ(Decode(Header(1, 5)).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Decode(Header(1, 6)).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Decode(Header(1, 7)).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Decode(Header(4, 3)).message(), "error frame length 4 out of range");
  EXPECT_EQ(Decode(Header(kSqlstateSize + kMaxErrorMessage + 1, 3), 1u << 20).code(),
            Status::Code::kInvalidArgument);
  // Every single-bit flip of a valid header's type/version/reserved bytes is caught
  // or still names a valid type.
  for (int byte = 4; byte < 8; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string h = Header(0, static_cast<uint8_t>(FrameType::kCancel));
      h[byte] = static_cast<char>(h[byte] ^ (1 << bit));
      FrameHeader out;
      Status s = DecodeFrameHeader(reinterpret_cast<const uint8_t*>(h.data()), 1024, &out);
      if (s.ok()) {
        EXPECT_EQ(byte, 4);
        EXPECT_GE(static_cast<int>(out.type), 1);
        EXPECT_LE(static_cast<int>(out.type), 7);
      }
    }
  }
}

TEST_F(SocketPair, TruncatedHeader) {
  WriteRaw(Header(0, 4).substr(0, 3));
  CloseWriter();
  Frame f;
  EXPECT_EQ(ReadFrame(fds_[1], 1024, &f).message(), "truncated frame header");
}

TEST_F(SocketPair, TruncatedPayload) {
  WriteRaw(Header(10, 2) + "abc");
  CloseWriter();
  Frame f;
  EXPECT_EQ(ReadFrame(fds_[1], 1024, &f).message(), "truncated frame payload");
}

TEST_F(SocketPair, OversizedLengthIsRejectedBeforeReadingThePayload) {
  WriteRaw(Header(1u << 30, 2));
  Frame f;
  Status s = ReadFrame(fds_[1], 1024, &f);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(f.payload.empty());
}

TEST(Frame, ErrorPayload) {
  std::string code, message;
  ASSERT_TRUE(
      DecodeErrorPayload(EncodeErrorPayload("22012", "division by zero"), &code, &message).ok());
  EXPECT_EQ(code, "22012");
  EXPECT_EQ(message, "division by zero");
  EXPECT_FALSE(DecodeErrorPayload("22", &code, &message).ok());
  EXPECT_FALSE(DecodeErrorPayload("22a12oops", &code, &message).ok());
  EXPECT_EQ(EncodeErrorPayload("XX000", std::string(10000, 'm')).size(),
            kSqlstateSize + kMaxErrorMessage);
}

}  // namespace
}  // namespace forktail
