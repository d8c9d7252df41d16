#include <gtest/gtest.h>

#include <string>

#include "recovery/recovery.h"

namespace forktail::wal {
namespace {

TEST(WalFormat, RecordRoundTrip) {
  std::string payload = "hello, log";
  std::string buf(RecordSize(payload.size()), '\0');
  EncodeRecord(buf.data(), 4096, 77, RecordType::kCommit, payload);
  RecordHeader h;
  ASSERT_EQ(CheckRecord(buf.data(), buf.size(), 4096, &h), RecordCheck::kOk);
  EXPECT_EQ(h.length, payload.size());
  EXPECT_EQ(h.txn, 77u);
  EXPECT_EQ(h.type, RecordType::kCommit);
  EXPECT_EQ(CheckRecord(buf.data(), buf.size(), 4097, &h), RecordCheck::kLsnMismatch);
  EXPECT_EQ(CheckRecord(buf.data(), buf.size() - 1, 4096, &h), RecordCheck::kIncompletePayload);
  EXPECT_EQ(CheckRecord(buf.data(), 10, 4096, &h), RecordCheck::kIncompleteHeader);
  std::string zeros(64, '\0');
  EXPECT_EQ(CheckRecord(zeros.data(), zeros.size(), 0, &h), RecordCheck::kZeroHeader);
}

// The CRC covers every header field and every payload byte.
TEST(WalFormat, EveryBitFlipIsDetected) {
  std::string payload = "payload bytes";
  std::string good(RecordSize(payload.size()), '\0');
  EncodeRecord(good.data(), 64, 5, RecordType::kUpdate, payload);
  for (size_t byte = 0; byte < good.size(); byte++) {
    for (int bit = 0; bit < 8; bit++) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      RecordHeader h;
      EXPECT_NE(CheckRecord(bad.data(), bad.size(), 64, &h), RecordCheck::kOk)
          << "byte " << byte << " bit " << bit;
    }
  }
}

TEST(WalFormat, SegmentHeaderAndNames) {
  char header[kSegmentHeaderSize];
  EncodeSegmentHeader(header, 0xA00000);
  Lsn lsn = 0;
  ASSERT_TRUE(DecodeSegmentHeader(header, &lsn));
  EXPECT_EQ(lsn, 0xA00000u);
  header[3] ^= 1;
  EXPECT_FALSE(DecodeSegmentHeader(header, &lsn));
  EXPECT_EQ(SegmentFileName(0xA00000), "0000000000A00000.wal");
  ASSERT_TRUE(ParseSegmentName("0000000000A00000.wal", &lsn));
  EXPECT_EQ(lsn, 0xA00000u);
  EXPECT_FALSE(ParseSegmentName("0000000000a00000.wal", &lsn));
  EXPECT_FALSE(ParseSegmentName("0000000000A00000.log", &lsn));
  EXPECT_FALSE(ParseSegmentName("A00000.wal", &lsn));
}

TEST(WalFormat, PayloadPreviewEscapes) {
  EXPECT_EQ(PayloadPreview(std::string("ab\x01", 3), 10), "ab\\x01");
  EXPECT_EQ(PayloadPreview("abcdef", 3), "abc...");
}

}  // namespace
}  // namespace forktail::wal
