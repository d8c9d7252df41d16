#include <gtest/gtest.h>

#include "tests/recovery/wal_test_util.h"

namespace forktail::wal {
namespace {

using testing::FaultOptions;
using testing::kDataDir;
using testing::Payload;
using testing::ReadAll;
using testing::SegmentPath;

constexpr int kRecords = 6;
constexpr size_t kPayload = 40;

// Truncating the last record at every byte offset is a torn tail; after the
// cut a reopened writer continues at the last record's LSN.
TEST(LogReader, TornTailAtEveryOffset) {
  FaultInjectionLogFileSystem base;
  std::vector<Lsn> lsns = testing::WriteLog(&base, kRecords, kPayload);
  const std::string image = base.Contents(SegmentPath(0));
  const uint64_t last_start = kSegmentHeaderSize + lsns.back();
  ASSERT_EQ(image.size(), last_start + RecordSize(kPayload));
  for (uint64_t cut = last_start + 1; cut < image.size(); cut++) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    FaultInjectionLogFileSystem fs;
    ASSERT_TRUE(fs.CreateDirIfMissing(std::string(kDataDir) + "/wal").ok());
    fs.SetContents(SegmentPath(0), image.substr(0, cut));
    auto r = ReadAll(&fs);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.records.size(), size_t{kRecords - 1});
    ASSERT_EQ(r.end.kind, LogEnd::Kind::kTornTail);
    EXPECT_EQ(r.end.offset, last_start);
    EXPECT_EQ(r.end.end_lsn, lsns.back());
    EXPECT_EQ(r.end.segment, SegmentPath(0));
    ASSERT_TRUE(TruncateTail(&fs, r.end).ok());
    EXPECT_EQ(ReadAll(&fs).end.kind, LogEnd::Kind::kClean);
    std::unique_ptr<LogWriter> w;
    ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w).ok());
    Lsn lsn;
    ASSERT_TRUE(w->Append(RecordType::kCommit, 99, "again", &lsn).ok());
    EXPECT_EQ(lsn, lsns.back());
    ASSERT_TRUE(w->Close().ok());
    auto again = ReadAll(&fs);
    ASSERT_TRUE(again.status.ok());
    ASSERT_EQ(again.records.size(), size_t{kRecords});
    EXPECT_EQ(again.payloads.back(), "again");
  }
}

// Zeros after the last record are space the writer preallocated: a clean
// end, which says where they start.
TEST(LogReader, TrailingZerosAreACleanEnd) {
  FaultInjectionLogFileSystem fs;
  std::vector<Lsn> lsns = testing::WriteLog(&fs, kRecords, kPayload);
  std::string image = fs.Contents(SegmentPath(0));
  fs.SetContents(SegmentPath(0), image + std::string(4096, '\0'));
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.records.size(), size_t{kRecords});
  EXPECT_EQ(r.end.kind, LogEnd::Kind::kClean);
  EXPECT_EQ(r.end.end_lsn, lsns.back() + RecordSize(kPayload));
  EXPECT_EQ(r.end.offset, image.size());
  EXPECT_EQ(r.end.preallocated, 4096u);
  EXPECT_NE(r.end.ToString().find("4096 preallocated zero bytes"), std::string::npos);
  ASSERT_TRUE(TruncateTail(&fs, r.end).ok());  // cuts them
  EXPECT_EQ(fs.Contents(SegmentPath(0)), image);
  EXPECT_EQ(ReadAll(&fs).end.preallocated, 0u);
}

// Anything but zeros after the last record is a torn tail, zeros first or not.
TEST(LogReader, TrailingGarbageIsTornTail) {
  for (const std::string& tail : {std::string(4096, '\x5a'), std::string(4095, '\0') + "\x01"}) {
    FaultInjectionLogFileSystem fs;
    testing::WriteLog(&fs, kRecords, kPayload);
    std::string image = fs.Contents(SegmentPath(0));
    fs.SetContents(SegmentPath(0), image + tail);
    auto r = ReadAll(&fs);
    ASSERT_TRUE(r.status.ok());
    EXPECT_EQ(r.records.size(), size_t{kRecords});
    EXPECT_EQ(r.end.kind, LogEnd::Kind::kTornTail);
    EXPECT_EQ(r.end.offset, image.size());
  }
}

// One flipped bit in any byte: of the last record -> torn tail; of a middle
// record -> corruption naming the segment and the record's offset.
TEST(LogReader, BitFlipInEveryByte) {
  FaultInjectionLogFileSystem base;
  std::vector<Lsn> lsns = testing::WriteLog(&base, kRecords, kPayload);
  const std::string image = base.Contents(SegmentPath(0));
  for (int which : {kRecords - 1, 2}) {
    uint64_t start = kSegmentHeaderSize + lsns[which];
    for (uint64_t byte = start; byte < start + RecordSize(kPayload); byte++) {
      SCOPED_TRACE("record " + std::to_string(which) + " byte " + std::to_string(byte));
      std::string bad = image;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << (byte % 8)));
      FaultInjectionLogFileSystem fs;
      ASSERT_TRUE(fs.CreateDirIfMissing(std::string(kDataDir) + "/wal").ok());
      fs.SetContents(SegmentPath(0), bad);
      auto r = ReadAll(&fs);
      if (which == kRecords - 1) {
        ASSERT_TRUE(r.status.ok()) << r.status.ToString();
        EXPECT_EQ(r.end.kind, LogEnd::Kind::kTornTail);
        EXPECT_EQ(r.end.offset, start);
      } else {
        ASSERT_EQ(r.status.code(), Status::Code::kCorruption);
        EXPECT_NE(
            r.status.message().find("wal/0000000000000000.wal offset " + std::to_string(start)),
            std::string::npos)
            << r.status.message();
        EXPECT_EQ(r.records.size(), size_t(which));
      }
    }
  }
}

TEST(LogReader, DamageInEarlierSegmentIsCorruption) {
  FaultInjectionLogFileSystem fs;
  testing::WriteLog(&fs, 40, 100, 1024);
  std::vector<SegmentInfo> segs;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &segs).ok());
  ASSERT_GE(segs.size(), 3u);
  std::string image = fs.Contents(segs[1].path);
  image.resize(image.size() - 5);  // a "torn" record, but later segments exist
  fs.SetContents(segs[1].path, image);
  auto r = ReadAll(&fs);
  ASSERT_EQ(r.status.code(), Status::Code::kCorruption);
  EXPECT_NE(r.status.message().find(DisplayPath(segs[1].path)), std::string::npos);
  EXPECT_NE(r.status.message().find("later segment(s) follow"), std::string::npos);
}

TEST(LogReader, MissingSegmentIsCorruption) {
  FaultInjectionLogFileSystem fs;
  testing::WriteLog(&fs, 40, 100, 1024);
  std::vector<SegmentInfo> segs;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &segs).ok());
  ASSERT_GE(segs.size(), 3u);
  ASSERT_TRUE(fs.Remove(segs[1].path).ok());
  auto r = ReadAll(&fs);
  ASSERT_EQ(r.status.code(), Status::Code::kCorruption);
  EXPECT_NE(r.status.message().find("a segment is missing"), std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find(DisplayPath(segs[2].path)), std::string::npos);
}

TEST(LogReader, TornSegmentHeaderIsRemovedAndLogContinues) {
  FaultInjectionLogFileSystem fs;
  std::vector<Lsn> lsns = testing::WriteLog(&fs, 10, 100, 1024);
  Lsn end = lsns.back() + RecordSize(100);
  fs.SetContents(SegmentPath(end), std::string(7, 'F'));  // crash while creating a segment
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.end.kind, LogEnd::Kind::kTornTail);
  EXPECT_TRUE(r.end.remove_segment);
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1024), &w).ok());
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "next", &lsn).ok());
  EXPECT_EQ(lsn, end);
  ASSERT_TRUE(w->Close().ok());
  auto again = ReadAll(&fs);
  ASSERT_TRUE(again.status.ok());
  EXPECT_EQ(again.records.size(), 11u);
  EXPECT_EQ(again.end.kind, LogEnd::Kind::kClean);
}

TEST(LogReader, RemoveSegmentsBeforeLsn) {
  FaultInjectionLogFileSystem fs;
  std::vector<Lsn> lsns = testing::WriteLog(&fs, 40, 100, 1024);
  std::vector<SegmentInfo> before;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &before).ok());
  Lsn checkpoint = lsns[25];
  int removed = 0;
  ASSERT_TRUE(RemoveSegmentsBefore(&fs, kDataDir, checkpoint, &removed).ok());
  std::vector<SegmentInfo> after;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &after).ok());
  EXPECT_GT(removed, 0);
  EXPECT_EQ(after.size() + removed, before.size());
  EXPECT_LE(after[0].first_lsn, checkpoint);
  auto r = ReadAll(&fs, checkpoint);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.records.size(), 15u);
  EXPECT_EQ(r.records[0].lsn, checkpoint);
  EXPECT_EQ(ReadAll(&fs, lsns[1]).status.code(), Status::Code::kNotFound);
  // Never the last segment, even for an LSN past the end.
  ASSERT_TRUE(RemoveSegmentsBefore(&fs, kDataDir, kInvalidLsn - 1, &removed).ok());
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &after).ok());
  EXPECT_EQ(after.size(), 1u);
}

}  // namespace
}  // namespace forktail::wal
