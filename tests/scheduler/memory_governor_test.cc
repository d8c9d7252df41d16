// MemoryGovernor: one query-memory budget shared by a process and its fork
// children; QueryMemory reserving from it; the cgroup limit it is sized from.
#include "scheduler/memory_governor.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scheduler/query_memory.h"
#include "storage/error.h"

namespace forktail {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(MemoryGovernor, ReservesWithinItsBudgetOnly) {
  MemoryGovernor governor(10 * kMiB);
  EXPECT_TRUE(governor.TryReserve(6 * kMiB));
  EXPECT_FALSE(governor.TryReserve(5 * kMiB));
  EXPECT_EQ(governor.reserved(), 6 * kMiB);  // the refusal reserved nothing
  EXPECT_TRUE(governor.TryReserve(4 * kMiB));
  governor.Release(6 * kMiB);
  EXPECT_TRUE(governor.TryReserve(5 * kMiB));
  governor.Release(9 * kMiB);
  EXPECT_EQ(governor.reserved(), 0u);
}

// A fork child charges the same budget; when it dies holding bytes (a snapshot
// process killed mid-query), a reservation that does not fit gets them back.
TEST(MemoryGovernor, ChildrenShareTheBudgetAndDeadChildrenAreReclaimed) {
  MemoryGovernor governor(16 * kMiB);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool ok = governor.TryReserve(12 * kMiB);
    char c = ok ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    _exit(0);  // never releases: as if killed
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  EXPECT_EQ(governor.reserved(), 12 * kMiB);    // the child's bytes count here
  EXPECT_FALSE(governor.TryReserve(8 * kMiB));  // alive or a zombie: its bytes are held
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);  // gone, reaped
  EXPECT_TRUE(governor.TryReserve(8 * kMiB));    // fits only once the child's bytes are back
  EXPECT_EQ(governor.reserved(), 8 * kMiB);
  governor.Release(8 * kMiB);
  close(ready[0]);
  close(ready[1]);
}

TEST(MemoryGovernor, LiveProcessesKeepTheirBytes) {
  MemoryGovernor governor(8 * kMiB);
  ASSERT_TRUE(governor.TryReserve(8 * kMiB));
  EXPECT_EQ(governor.ReclaimDeadProcesses(), 0u);
  EXPECT_FALSE(governor.TryReserve(1));
  governor.Release(8 * kMiB);
}

TEST(MemoryGovernor, QueryMemoryFailsWith53200WhenTheServerBudgetIsHeld) {
  MemoryGovernor governor(16 * kMiB);
  ASSERT_TRUE(governor.TryReserve(12 * kMiB));  // other queries
  {
    QueryMemory memory(size_t{1} << 30, &governor);  // its own limit is far away
    memory.Charge(3 * kMiB, "aggregation");          // one 4 MiB granule
    EXPECT_EQ(governor.reserved(), 16 * kMiB);
    try {
      memory.Charge(2 * kMiB, "aggregation");
      FAIL() << "expected 53200";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), "53200");
      EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("aggregation needs"), std::string::npos) << e.what();
    }
    EXPECT_EQ(memory.used(), 3 * kMiB);  // the failed charge counted nothing
    EXPECT_THROW(memory.Allocate(2 * kMiB), DbError);
    EXPECT_EQ(memory.used(), 3 * kMiB);
  }
  EXPECT_EQ(governor.reserved(), 12 * kMiB);  // the query's granule is back
  governor.Release(12 * kMiB);
}

TEST(MemoryGovernor, AQueryHoldsItsPeakUntilItEnds) {
  MemoryGovernor governor(64 * kMiB);
  QueryMemory memory(size_t{1} << 30, &governor);
  memory.Charge(9 * kMiB);
  memory.Uncharge(9 * kMiB);
  EXPECT_EQ(governor.reserved(), 12 * kMiB);  // three granules, kept
  memory.Charge(10 * kMiB);                   // within them: no new granule
  EXPECT_EQ(governor.reserved(), 12 * kMiB);
  memory.ReleaseAll();
  EXPECT_EQ(governor.reserved(), 0u);
}

class CgroupFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("forktail_cgroup_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    std::filesystem::path p = root_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  size_t Limit() {
    return CgroupMemoryLimit((root_ / "proc_cgroup").string(), (root_ / "fs").string());
  }
  std::filesystem::path root_;
};

TEST_F(CgroupFiles, V2TakesTheSmallestLimitUpTheHierarchy) {
  Write("proc_cgroup", "0::/box/job\n");
  Write("fs/cgroup.controllers", "memory\n");
  Write("fs/box/job/memory.max", "max\n");
  Write("fs/box/memory.max", "4294967296\n");
  Write("fs/memory.max", "8589934592\n");
  EXPECT_EQ(Limit(), size_t{4} << 30);
  Write("fs/box/job/memory.max", "1073741824\n");
  EXPECT_EQ(Limit(), size_t{1} << 30);
}

TEST_F(CgroupFiles, V2WithoutALimitIsNone) {
  Write("proc_cgroup", "0::/\n");
  Write("fs/cgroup.controllers", "memory\n");
  Write("fs/memory.max", "max\n");
  EXPECT_EQ(Limit(), 0u);
}

TEST_F(CgroupFiles, V2UnderUnifiedInAHybridLayout) {
  Write("proc_cgroup", "0::/box\n");
  Write("fs/unified/cgroup.controllers", "memory\n");
  Write("fs/unified/box/memory.max", "536870912\n");
  EXPECT_EQ(Limit(), size_t{512} << 20);
}

TEST_F(CgroupFiles, V1MemoryController) {
  Write("proc_cgroup", "12:cpu,cpuacct:/a\n5:memory:/docker/x\n");
  Write("fs/memory/docker/x/memory.limit_in_bytes", "2147483648\n");
  EXPECT_EQ(Limit(), size_t{2} << 30);
  Write("fs/memory/docker/x/memory.limit_in_bytes", "9223372036854771712\n");  // unlimited
  EXPECT_EQ(Limit(), 9223372036854771712u);  // a number, taken; min() with RAM drops it
}

TEST(MemoryGovernor, TheEffectiveLimitIsAtMostPhysicalMemory) {
  const size_t physical =
      static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  EXPECT_GT(EffectiveMemoryLimit(), 0u);
  EXPECT_LE(EffectiveMemoryLimit(), physical);
  EXPECT_EQ(MemoryGovernor::Global().budget(), EffectiveMemoryLimit() / 2);
}

}  // namespace
}  // namespace forktail
