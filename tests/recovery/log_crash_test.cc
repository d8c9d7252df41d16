#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tests/recovery/wal_test_util.h"

namespace forktail::wal {
namespace {

using testing::FaultOptions;
using testing::kDataDir;
using testing::Payload;
using testing::ReadAll;

// Invariant 2 at the log level: rounds of appends, a random fault (failed
// fdatasync, torn write, ENOSPC), a crash that drops unsynced data, reopen.
// Every record whose WaitDurable returned Ok must be read back unchanged, the
// log must continue after the cut, and nothing may be reported as corruption.
// With and without zeros preallocated ahead of the appends.
class LogCrash : public ::testing::TestWithParam<uint64_t> {};

TEST_P(LogCrash, AcknowledgedRecordsSurviveFaultsAndCrashes) {
  const uint32_t seed = 20261121;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  FaultInjectionLogFileSystem fs;
  std::map<Lsn, std::string> acked;
  int counter = 0;
  for (int round = 0; round < 40; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::unique_ptr<LogWriter> w;
    Status open = LogWriter::Open(kDataDir, FaultOptions(&fs, 2048, GetParam()), &w);
    ASSERT_TRUE(open.ok()) << open.ToString();
    int before_fault = static_cast<int>(rng() % 20);
    int fault = static_cast<int>(rng() % 3);
    for (int i = 0; i < 40; i++) {
      if (i == before_fault) {
        if (fault == 0) fs.FailSyncAt(1 + rng() % 3);
        if (fault == 1) fs.TearNextWrite(rng() % 200);
        if (fault == 2) fs.FailWritesWithNoSpace(true);
      }
      std::string payload = Payload(counter, 1 + rng() % 300);
      Lsn lsn;
      Status s = w->Append(RecordType::kInsert, static_cast<TxnId>(counter++), payload, &lsn);
      if (!s.ok()) break;
      if (rng() % 3 == 0 && w->WaitDurable(lsn).ok()) acked[lsn] = payload;
    }
    w->Close().PermitUnchecked();
    w.reset();
    fs.SimulateCrash();
    auto r = ReadAll(&fs);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    std::map<Lsn, std::string> found;
    for (size_t k = 0; k < r.records.size(); k++) found[r.records[k].lsn] = r.payloads[k];
    for (const auto& [lsn, payload] : acked) {
      ASSERT_TRUE(found.count(lsn)) << "acknowledged LSN " << lsn << " lost";
      ASSERT_EQ(found[lsn], payload);
    }
  }
  EXPECT_GT(acked.size(), 50u);
}

INSTANTIATE_TEST_SUITE_P(Preallocate, LogCrash, ::testing::Values(0, 512));

}  // namespace
}  // namespace forktail::wal
