// pg_backend_pid(), pg_stat_activity, pg_cancel_backend and
// pg_terminate_backend in a session over a directory of backends (the wire
// server's, here a recording fake): what the session answers, what it
// signals and when, and what it refuses.
#include <map>
#include <mutex>
#include <vector>

#include "olap/plan/catalog/backend_directory.h"
#include "tests/common/sanitizer_fork.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class FakeBackends : public BackendDirectory {
 public:
  std::vector<BackendActivity> List() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<BackendActivity> all;
    for (const auto& [pid, a] : backends_) all.push_back(a);
    return all;
  }
  bool Cancel(int32_t pid) override {
    std::lock_guard<std::mutex> lock(mu_);
    canceled_.push_back(pid);
    return backends_.count(pid) != 0;
  }
  bool Terminate(int32_t pid) override {
    std::lock_guard<std::mutex> lock(mu_);
    terminated_.push_back(pid);
    return backends_.erase(pid) != 0;  // gone at once
  }
  void Add(BackendActivity a) {
    std::lock_guard<std::mutex> lock(mu_);
    backends_[a.pid] = std::move(a);
  }

  mutable std::mutex mu_;
  std::map<int32_t, BackendActivity> backends_;
  std::vector<int32_t> canceled_;
  std::vector<int32_t> terminated_;
};

class BackendActivityTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    SessionOptions options;
    options.user = "ann";
    options.database = "shop";
    options.backend_pid = 4242;
    options.backends = &backends_;
    session_ = std::make_unique<SqlSession>(*engine_, options);
    BackendActivity self;
    self.pid = 4242;
    self.user = "ann";
    self.database = "shop";
    self.state = "active";
    self.query = "select ...";
    self.backend_start = 1'700'000'000'000'000;
    self.query_start = 1'700'000'000'500'000;
    backends_.Add(self);
    BackendActivity other = self;
    other.pid = 4243;
    other.application_name = "psql";
    other.client_addr = "127.0.0.1";
    other.client_port = 51000;
    other.state = "idle in transaction";
    other.query = "update t set v = 1";
    backends_.Add(other);
  }

  FakeBackends backends_;
};

TEST_F(BackendActivityTest, BackendPidAndSessionUser) {
  EXPECT_THAT(Query("select pg_backend_pid(), current_user, current_database()"),
              ElementsAre("4242|ann|shop"));
}

TEST_F(BackendActivityTest, PgStatActivityListsTheDirectory) {
  EXPECT_THAT(Query("select pid, usename, datname, application_name, client_addr, client_port, "
                    "state, query, backend_type, leader_pid is null, backend_start "
                    "from pg_stat_activity order by pid"),
              ElementsAre("4242|ann|shop|||-1|active|select ...|client backend|t|"
                          "2023-11-14 22:13:20+00",
                          "4243|ann|shop|psql|127.0.0.1|51000|idle in transaction|update t set "
                          "v = 1|client backend|t|2023-11-14 22:13:20+00"));
  EXPECT_THAT(Query("select count(*) from pg_catalog.pg_stat_activity where state = 'active'"),
              ElementsAre("1"));
}

TEST_F(BackendActivityTest, SignalsRunWhenTheRowIsEvaluatedOnly) {
  // Describing a statement does not run it.
  session_->Prepare("select pg_cancel_backend($1)", {});
  session_->Prepare("select pg_terminate_backend(4243)", {});
  EXPECT_TRUE(backends_.canceled_.empty());
  EXPECT_TRUE(backends_.terminated_.empty());

  EXPECT_THAT(Query("select pg_cancel_backend(4243), pg_cancel_backend(9)"), ElementsAre("t|f"));
  EXPECT_THAT(backends_.canceled_, ElementsAre(4243, 9));
  // Every row's pid, as in PostgreSQL's "select pg_cancel_backend(pid) from
  // pg_stat_activity where ...".
  EXPECT_THAT(Query("select pid, pg_cancel_backend(pid) from pg_stat_activity "
                    "where state <> 'active' order by pid"),
              ElementsAre("4243|t"));
  EXPECT_THAT(backends_.canceled_, ElementsAre(4243, 9, 4243));

  EXPECT_THAT(Query("select pg_terminate_backend(4243, 100)"), ElementsAre("t"));
  EXPECT_THAT(Query("select pg_terminate_backend(4243)"), ElementsAre("f"));
  EXPECT_THAT(Query("select pid from pg_stat_activity"), ElementsAre("4242"));
  EXPECT_THAT(Query("select pg_cancel_backend(null) is null"), ElementsAre("t"));
}

TEST_F(BackendActivityTest, RefusedArgumentsAndPlaces) {
  ExpectDbError([&] { Run("select pg_terminate_backend(4243, -1)"); }, "22023",
                "\"timeout\" must not be negative");
  EXPECT_TRUE(backends_.terminated_.empty());
  Run("create table t (id int primary key)");
  Run("insert into t values (4243)");
  // Tables are read in snapshots, where the backends are not.
  ExpectDbError([&] { Run("select pg_cancel_backend(id) from t"); }, "0A000",
                "a query that reads pg_stat_activity or calls pg_cancel_backend or "
                "pg_terminate_backend cannot read tables or views in Forktail");
  ExpectDbError([&] { Run("select * from pg_stat_activity a join t on t.id = a.pid"); }, "0A000",
                "a query that reads pg_stat_activity or calls pg_cancel_backend or "
                "pg_terminate_backend cannot read tables or views in Forktail");
  Run("create sequence s");
  ExpectDbError([&] { Run("select nextval('s') from pg_stat_activity"); }, "0A000",
                "a query that reads pg_stat_activity or calls pg_cancel_backend or "
                "pg_terminate_backend cannot call sequence functions in Forktail");
  EXPECT_TRUE(backends_.canceled_.empty());
  ExpectDbError([&] { Run("create view v as select pid from pg_stat_activity"); }, "0A000",
                "pg_stat_activity can be used only in queries that read no tables (Forktail "
                "answers them in the server process)");
}

TEST_F(BackendActivityTest, InsideABlockTheyAreNotValidatedAtCommit) {
  Run("create table t (id int primary key)");
  Run("begin");
  Run("insert into t values (1)");
  EXPECT_THAT(Query("select count(*) from pg_stat_activity"), ElementsAre("2"));
  BackendActivity third;
  third.pid = 4244;
  backends_.Add(third);  // what the block saw changes: no 40001 for that
  EXPECT_EQ(Run("commit").command_tag, "COMMIT");
  EXPECT_THAT(Query("select count(*) from t"), ElementsAre("1"));
}

// Reads go to snapshot processes here (Release builds): a statement over
// pg_stat_activity that fails to bind says why, as on the in-process path,
// instead of failing for want of backends in a snapshot.
class BackendActivitySnapshotTest : public BackendActivityTest {
 protected:
  void SetUp() override {
    FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
    Open(SnapshotRouting());
    SessionOptions options;
    options.backend_pid = 4242;
    options.backends = &backends_;
    session_ = std::make_unique<SqlSession>(*engine_, options);
    BackendActivity self;
    self.pid = 4242;
    self.state = "active";
    backends_.Add(self);
  }
};

TEST_F(BackendActivitySnapshotTest, BindErrorsAreTheStatementsOwn) {
  EXPECT_THAT(Query("select pid, state from pg_stat_activity"), ElementsAre("4242|active"));
  try {
    Run("select no_such_column from pg_stat_activity");
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.sqlstate()), "42703") << e.what();
  }
}

TEST(BackendActivityEmbedded, NoDirectoryNoBackends) {
  TempDir dir;
  std::unique_ptr<SqlFrontend> engine = SqlFrontend::Open(dir.path(), InProcess());
  SqlSession session(*engine);
  EXPECT_THAT(Lines(session.Execute("select count(*) from pg_stat_activity").back()),
              ElementsAre("0"));
  EXPECT_THAT(Lines(session.Execute("select pg_cancel_backend(1)").back()), ElementsAre("f"));
  EXPECT_THAT(Lines(session.Execute("select pg_backend_pid() > 0").back()), ElementsAre("t"));
}

}  // namespace
}  // namespace forktail::testing
