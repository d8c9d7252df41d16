#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "recovery/recovery.h"

namespace forktail::wal {
namespace {

// The tools run against the real file system in a fresh temporary directory.
class WalToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("forktail_wal_tool_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void WriteRecords(int n) {
    LogWriterOptions o;
    o.segment_size = 1024;
    std::unique_ptr<LogWriter> w;
    ASSERT_TRUE(LogWriter::Open(dir_, o, &w).ok());
    for (int i = 0; i < n; i++) {
      ASSERT_TRUE(w->Append(i % 2 ? RecordType::kCommit : RecordType::kInsert, i,
                            "row " + std::to_string(i), &lsns_.emplace_back())
                      .ok());
    }
    ASSERT_TRUE(w->Close().ok());
  }
  std::string LastSegment() {
    std::vector<SegmentInfo> segs;
    EXPECT_TRUE(ListSegments(PosixLogFileSystem(), dir_, &segs).ok());
    return segs.back().path;
  }
  int Verify() {
    out_.str("");
    err_.str("");
    return WalVerify(PosixLogFileSystem(), dir_, out_, err_);
  }

  std::string dir_;
  std::vector<Lsn> lsns_;
  std::ostringstream out_, err_;
};

TEST_F(WalToolTest, CleanLogVerifiesAndDumps) {
  WriteRecords(30);
  EXPECT_EQ(Verify(), kToolClean);
  EXPECT_NE(out_.str().find("30 records"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("verdict: CLEAN"), std::string::npos);
  std::ostringstream out, err;
  EXPECT_EQ(WalDump(PosixLogFileSystem(), dir_, lsns_[28], out, err), kToolClean);
  std::string text = out.str();
  EXPECT_NE(text.find("insert"), std::string::npos) << text;
  EXPECT_NE(text.find("txn=29"), std::string::npos);
  EXPECT_NE(text.find("row 29"), std::string::npos);
  EXPECT_EQ(text.find("row 27"), std::string::npos);
  EXPECT_NE(text.find("summary: 2 records"), std::string::npos);
}

TEST_F(WalToolTest, TornTailExitsOne) {
  WriteRecords(30);
  std::filesystem::resize_file(LastSegment(), std::filesystem::file_size(LastSegment()) - 3);
  EXPECT_EQ(Verify(), kToolTornTail);
  EXPECT_NE(out_.str().find("TORN TAIL"), std::string::npos) << out_.str();
}

TEST_F(WalToolTest, CorruptionExitsTwo) {
  WriteRecords(30);
  std::vector<SegmentInfo> segs;
  ASSERT_TRUE(ListSegments(PosixLogFileSystem(), dir_, &segs).ok());
  ASSERT_GE(segs.size(), 2u);
  {
    std::fstream f(segs[0].path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kSegmentHeaderSize + kRecordHeaderSize + 1);
    f.put('#');
  }
  EXPECT_EQ(Verify(), kToolCorrupt);
  EXPECT_NE(out_.str().find("CORRUPT"), std::string::npos);
  EXPECT_NE(out_.str().find(DisplayPath(segs[0].path) + " offset 32"), std::string::npos)
      << out_.str();
}

TEST_F(WalToolTest, UsageErrorsExitThree) {
  EXPECT_EQ(Verify(), kToolUsageError);  // missing directory
  EXPECT_NE(err_.str().find("does not exist"), std::string::npos) << err_.str();
  std::filesystem::create_directories(dir_);
  EXPECT_EQ(Verify(), kToolUsageError);  // no wal/
  EXPECT_NE(err_.str().find("not a Forktail data directory"), std::string::npos) << err_.str();
  std::filesystem::create_directories(dir_ + "/wal");
  EXPECT_EQ(Verify(), kToolUsageError);  // empty wal/
  EXPECT_NE(err_.str().find("not a Forktail log"), std::string::npos) << err_.str();
  std::ofstream(dir_ + "/wal/0000000000000000.wal") << "this is not a log segment at all, no";
  EXPECT_EQ(Verify(), kToolCorrupt);  // a file with a segment name but no segment header
  EXPECT_NE(out_.str().find("invalid segment header"), std::string::npos) << out_.str();
}

}  // namespace
}  // namespace forktail::wal
