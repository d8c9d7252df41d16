// The control endpoint of `forktail snapshots` (snapshot/snapshot_control.h):
// listing live snapshots through DIR/forktail.ctl, errors, a stale socket
// file, a second server, a data directory path longer than sun_path.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "test_handler.h"
#include "tests/common/txn_test_util.h"

namespace forktail::testing {
namespace {

SnapshotOptions Options(FakeTable* table) {
  SnapshotOptions o;
  o.handler = MakeTestHandler(table);
  return o;
}

TEST(SnapshotControl, ListsLiveSnapshotsWithLsnPidAndState) {
  TempDir dir;
  FakeTxnEngine engine(1);
  engine.Execute([](FakeTable& t) { t.at(0) = 7; });
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotControlServer control(&manager, dir.path());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/forktail.ctl"));

  std::string answer;
  ASSERT_TRUE(QuerySnapshotControl(dir.path(), "snapshots", &answer).ok());
  EXPECT_NE(answer.find("copied_kib"), std::string::npos) << answer;
  EXPECT_NE(answer.find("created 0 died 0"), std::string::npos) << answer;

  SnapshotLease lease = manager.Acquire();
  auto query = lease.Start("hang");  // one running request
  std::string batch;
  ASSERT_TRUE(query->Next(&batch));
  ASSERT_TRUE(QuerySnapshotControl(dir.path(), "snapshots", &answer).ok());
  // The row: id pid lsn age running state ...
  const std::string row_start = std::to_string(lease.pid()) + " ";
  size_t at = answer.find(" " + row_start);
  ASSERT_NE(at, std::string::npos) << answer;
  std::string row = answer.substr(at, answer.find('\n', at) - at);
  EXPECT_NE(row.find(" " + std::to_string(lease.lsn()) + " "), std::string::npos) << row;
  EXPECT_NE(row.find(" 1     live"), std::string::npos) << row;  // running = 1
  EXPECT_NE(answer.find("created 1 died 0"), std::string::npos) << answer;
  query->Cancel();
  query.reset();

  ASSERT_TRUE(QuerySnapshotControl(dir.path(), "drop everything", &answer).ok());
  EXPECT_EQ(answer, "error: unknown request \"drop everything\"\n");
}

TEST(SnapshotControl, SecondServerIsRefusedStaleSocketIsReplacedNoServerIsAnError) {
  TempDir dir;
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  std::string answer;
  Status none = QuerySnapshotControl(dir.path(), "snapshots", &answer);
  EXPECT_EQ(none.code(), Status::Code::kIoError);
  EXPECT_NE(none.message().find("forktail.ctl"), std::string::npos) << none.message();
  {
    SnapshotControlServer control(&manager, dir.path());
    try {
      SnapshotControlServer second(&manager, dir.path());
      ADD_FAILURE() << "a second server on the same directory must be refused";
    } catch (const DbError& e) {
      EXPECT_NE(std::string(e.what()).find("another server"), std::string::npos) << e.what();
    }
    ASSERT_TRUE(QuerySnapshotControl(dir.path(), "snapshots", &answer).ok());
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/forktail.ctl"));
  // A crashed server's socket file: bound, then closed without unlink.
  {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string path = dir.path() + "/forktail.ctl";
    std::memcpy(addr.sun_path, path.data(), path.size());
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
  }
  SnapshotControlServer control(&manager, dir.path());
  ASSERT_TRUE(QuerySnapshotControl(dir.path(), "snapshots", &answer).ok());
  EXPECT_NE(answer.find("created"), std::string::npos);
}

TEST(SnapshotControl, DataDirectoryLongerThanSunPath) {
  TempDir dir;
  std::string deep = dir.path() + "/" + std::string(60, 'd') + "/" + std::string(60, 'e');
  std::filesystem::create_directories(deep);
  ASSERT_GT(deep.size() + 13, sizeof(sockaddr_un{}.sun_path));
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotControlServer control(&manager, deep);
  EXPECT_TRUE(std::filesystem::exists(deep + "/forktail.ctl"));
  std::string answer;
  ASSERT_TRUE(QuerySnapshotControl(deep, "snapshots", &answer).ok());
  EXPECT_NE(answer.find("created 0"), std::string::npos) << answer;
}

}  // namespace
}  // namespace forktail::testing
