// SELECTs routed to real fork()ed snapshot processes (ReadRouting::kSnapshot).
// They fork a multi-threaded parent many times, so they skip under
// sanitizers and run in the Release build (`make release-test`):
//   - freshness: a SELECT sees every commit acknowledged before it arrived,
//     from any session (a new connection too); point and catalog reads, and
//     short reads through an index, run without a fork (a probe that finds
//     too many rows goes to a snapshot after all); max_snapshot_age_ms opts into an older snapshot;
//     a stale snapshot nobody uses is retired;
//   - read-your-writes: a SELECT after a commit always sees it;
//   - a SELECT during concurrent transfers sees a consistent state (the sum
//     of balances never changes), with snapshots refreshed by age and by the
//     session's max snapshot age;
//   - a killed snapshot process fails the running query with a clear error
//     and the next query works; Cancel() stops a query in the child;
//   - parameters and error positions survive the trip to the child.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/common/sanitizer_fork.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

class EngineSnapshotTest : public EngineFixture {
 protected:
  void SetUp() override { FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER(); }

  // A table big enough that a triple self-join never finishes in a test.
  void MakeBigTable() {
    Run("CREATE TABLE big (a int)");
    Run("COPY big FROM STDIN");
    std::string data;
    for (int i = 0; i < 3000; i++) data += std::to_string(i) + "\n";
    session_->CopyIn(data);
    session_->CopyDone();
  }
  // Waits until some snapshot process runs a request; returns its pid.
  pid_t WaitForRunningSnapshot() {
    for (int i = 0; i < 2000; i++) {
      for (const SnapshotInfo& info : engine_->snapshots()->List()) {
        if (info.running > 0) return info.pid;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "no snapshot ever ran the query";
    return 0;
  }
};

TEST_F(EngineSnapshotTest, ReadYourWritesAfterEveryCommit) {
  Open(SnapshotRouting());
  Run("CREATE TABLE t (a int PRIMARY KEY)");
  for (int i = 1; i <= 15; i++) {
    Run("INSERT INTO t VALUES (" + std::to_string(i) + ")");
    ASSERT_THAT(Query("SELECT count(*), max(a) FROM t"),
                ElementsAre(std::to_string(i) + "|" + std::to_string(i)));
  }
  SqlSession other(*engine_);
  other.Execute("BEGIN; DELETE FROM t WHERE a > 10; COMMIT");
  EXPECT_THAT(Lines(other.Execute("SELECT count(*) FROM t").back()), ElementsAre("10"));
}

TEST_F(EngineSnapshotTest, SelectsDuringConcurrentTransfersSeeConsistentStates) {
  SqlFrontendOptions options = SnapshotRouting();
  options.snapshot.refresh_interval_ms = 20;
  Open(options);
  Run("CREATE TABLE acct (id int PRIMARY KEY, balance bigint)");
  std::string values;
  for (int i = 0; i < 100; i++) values += (i ? ", (" : "(") + std::to_string(i) + ", 1000)";
  Run("INSERT INTO acct VALUES " + values);

  std::atomic<bool> stop{false};
  std::thread writer([&] {
    SqlSession w(*engine_);
    for (int k = 0; !stop.load(); k++) {
      int from = k % 100, to = (k * 7 + 3) % 100;
      w.Execute("UPDATE acct SET balance = balance - 5 WHERE id = " + std::to_string(from) +
                "; UPDATE acct SET balance = balance + 5 WHERE id = " + std::to_string(to));
    }
  });
  SqlSession fresh(*engine_);
  fresh.Execute("SET forktail.max_snapshot_age_ms = 5");
  for (int i = 0; i < 40; i++) {
    SqlSession& s = i % 2 ? fresh : *session_;
    std::vector<StatementResult> r = s.Execute("SELECT sum(balance), count(*) FROM acct");
    ASSERT_THAT(Lines(r.back()), ElementsAre("100000|100")) << "query " << i;
  }
  stop.store(true);
  writer.join();
  EXPECT_GT(engine_->snapshots()->stats().created, 1u);
}

TEST_F(EngineSnapshotTest, KilledSnapshotFailsTheQueryAndTheNextOneWorks) {
  Open(SnapshotRouting());
  MakeBigTable();
  std::string error;
  std::thread query([&] {
    try {
      Run("SELECT count(*) FROM big x, big y, big z");
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
  });
  pid_t pid = WaitForRunningSnapshot();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  query.join();
  EXPECT_THAT(error, HasSubstr("57P02 snapshot process " + std::to_string(pid)));
  EXPECT_THAT(error, HasSubstr("died: killed by signal 9"));
  EXPECT_THAT(Query("SELECT count(*) FROM big"), ElementsAre("3000"));
}

TEST_F(EngineSnapshotTest, CancelStopsTheQueryInTheChild) {
  Open(SnapshotRouting());
  MakeBigTable();
  std::string error;
  std::thread query([&] {
    try {
      Run("SELECT count(*) FROM big x, big y, big z");
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
  });
  WaitForRunningSnapshot();
  session_->Cancel();
  query.join();
  EXPECT_EQ(error, "57014 canceling statement due to user request");
  EXPECT_THAT(Query("SELECT count(*) FROM big WHERE a < 10"), ElementsAre("10"));
}

TEST_F(EngineSnapshotTest, ParametersAndErrorPositionsSurviveTheTrip) {
  Open(SnapshotRouting());
  Run("CREATE TABLE t (a int PRIMARY KEY, b text)");
  Run("INSERT INTO t VALUES (1, 'one'), (2, 'two')");
  auto p = session_->Prepare("SELECT b FROM t WHERE a = $1", {});
  EXPECT_THAT(Lines(session_->ExecutePrepared(*p, {Value::Integer(2)})), ElementsAre("two"));
  ExpectDbError([&] { session_->Execute("  SELECT nope FROM t"); }, "42703",
                "column \"nope\" does not exist", 10);
  ExpectDbError([&] { session_->Execute("SELECT 1/0"); }, "22012", "division by zero");
  EXPECT_THAT(Query("SELECT current_schema()"), ElementsAre("public"));
}

TEST_F(EngineSnapshotTest, AFreshSessionSeesEveryCommitOfAnyOtherSession) {
  Open(SnapshotRouting());
  SqlSession writer(*engine_);
  writer.Execute("CREATE TABLE a (id int PRIMARY KEY, v int)");
  for (int i = 1; i <= 10; i++) {
    writer.Execute("INSERT INTO a VALUES (" + std::to_string(i) + ", 1)");
    SqlSession reader(*engine_);  // a new connection
    ASSERT_THAT(Lines(reader.Execute("SELECT count(*) FROM a").back()),
                ElementsAre(std::to_string(i)));
    // A long-lived session that never wrote sees it too.
    ASSERT_THAT(Query("SELECT sum(v) FROM a"), ElementsAre(std::to_string(i)));
  }
  writer.Execute("BEGIN; UPDATE a SET v = 2 WHERE id = 1; COMMIT");
  EXPECT_THAT(Query("SELECT sum(v) FROM a"), ElementsAre("11"));
  writer.Execute("BEGIN");
  writer.Execute("DELETE FROM a WHERE id > 5");
  writer.Execute("COMMIT");
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("5"));
}

TEST_F(EngineSnapshotTest, PointAndCatalogReadsRunWithoutAFork) {
  Open(SnapshotRouting());
  Run("CREATE TABLE a (id int PRIMARY KEY, v int)");
  SqlSession writer(*engine_);
  const uint64_t forks = engine_->snapshots()->stats().created;
  for (int i = 1; i <= 20; i++) {
    writer.Execute("INSERT INTO a VALUES (" + std::to_string(i) + ", " + std::to_string(10 * i) +
                   ")");
    ASSERT_THAT(Query("SELECT v FROM a WHERE id = " + std::to_string(i)),
                ElementsAre(std::to_string(10 * i)));
    ASSERT_THAT(Query("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'a'"),
                ElementsAre("1"));
    ASSERT_THAT(Query("SELECT 1 + 1"), ElementsAre("2"));
  }
  EXPECT_EQ(engine_->snapshots()->stats().created, forks);
  // A scan needs a snapshot: one fork, shared by the reads before the next commit.
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("20"));
  EXPECT_THAT(Query("SELECT sum(v) FROM a"), ElementsAre("2100"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);
}

// A read of no table runs on the transaction thread only while its rows are
// few: a long series, or a cross join of short ones, would stop every
// transaction while it counts, so it goes to a snapshot like a scan.
TEST_F(EngineSnapshotTest, LargeTableFreeReadsRunOnASnapshot) {
  Open(SnapshotRouting());
  Run("CREATE TABLE a (id int PRIMARY KEY)");
  Run("INSERT INTO a VALUES (1)");
  const uint64_t forks = engine_->snapshots()->stats().created;
  EXPECT_THAT(Query("SELECT count(*) FROM generate_series(1, 1000) g"), ElementsAre("1000"));
  EXPECT_THAT(Query("SELECT count(*) FROM generate_series(1, 300) x, generate_series(1, 300) y"),
              ElementsAre("90000"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks);
  EXPECT_THAT(Query("SELECT count(*) FROM generate_series(1, 5000000) g WHERE g % 7 = 3"),
              ElementsAre("714286"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);
  EXPECT_THAT(Query("SELECT count(*) FROM generate_series(1, 400) x, generate_series(1, 400) y"),
              ElementsAre("160000"));
  EXPECT_THAT(Query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) "
                    "SELECT sum(n) FROM r"),
              ElementsAre("55"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);  // the same snapshot
}

TEST_F(EngineSnapshotTest, ShortIndexedReadsRunWithoutAForkLargeOnesOnASnapshot) {
  Open(SnapshotRouting());
  Run("CREATE TABLE r (id int PRIMARY KEY, a int, b text)");
  Run("INSERT INTO r SELECT g, g % 1000, 'b' || g FROM generate_series(1, 20000) g");
  Run("CREATE INDEX r_a ON r (a)");
  Run("CREATE INDEX r_b ON r (b, a)");
  EXPECT_THAT(Query("EXPLAIN SELECT b FROM r WHERE a >= 3 AND a < 5 AND id > 1"),
              ElementsAre(HasSubstr("IndexScan r index=r_a[a >= 3 AND a < 5]")));
  EXPECT_THAT(Query("EXPLAIN SELECT b FROM r WHERE b = 'x' AND a = 3"),
              ElementsAre(HasSubstr("IndexScan r index=r_b[b = 'x' AND a = 3]")));
  EXPECT_THAT(Query("EXPLAIN SELECT b FROM r WHERE id = 3 AND a = 3"),
              ElementsAre(HasSubstr("IndexScan r index=r_pkey[id = 3]")));
  SqlSession writer(*engine_);
  const uint64_t forks = engine_->snapshots()->stats().created;
  for (int i = 1; i <= 10; i++) {
    writer.Execute("UPDATE r SET a = 1000 WHERE id = " + std::to_string(20000 - i));
    ASSERT_THAT(Query("SELECT count(*) FROM r WHERE a = 1000"), ElementsAre(std::to_string(i)));
    ASSERT_THAT(Query("SELECT count(*), min(id) FROM r WHERE a BETWEEN 7 AND 8"),
                ElementsAre("40|7"));
    ASSERT_THAT(Query("SELECT x.id FROM r x JOIN r y ON y.a = x.a WHERE x.b = 'b17' AND "
                      "y.a = 17 AND y.id < 18"),
                ElementsAre("17"));
  }
  EXPECT_EQ(engine_->snapshots()->stats().created, forks);
  // 10,000 rows: over the limit for the thread, answered by a snapshot.
  EXPECT_THAT(Query("SELECT count(*) FROM r WHERE a < 500"), ElementsAre("10000"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);
  // No usable index (a condition on no indexed column, or none at all).
  EXPECT_THAT(Query("SELECT count(*) FROM r WHERE id + 0 = 3"), ElementsAre("1"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);  // the same snapshot
}

// An index join (physical_scan.h "Index joins"): the probe side of a hash
// join whose build is small reads only the rows an index finds per build
// key (TPC-C's Stock-Level: the items of 20 orders among 100,000 stock rows).
TEST_F(EngineSnapshotTest, HashJoinsProbeAnIndexPerBuildKeyWhenTheBuildIsSmall) {
  Open(SnapshotRouting());
  Run("CREATE TABLE stock (w int, i int, q int, PRIMARY KEY (w, i))");
  Run("INSERT INTO stock SELECT w, g, g % 100 FROM generate_series(1, 20000) g, "
      "generate_series(1, 2) w");
  Run("CREATE INDEX stock_q ON stock (q)");
  // i is bigint here: the join compares stock.i widened to bigint.
  Run("CREATE TABLE ol (o int, n int, i bigint, PRIMARY KEY (o, n))");
  Run("INSERT INTO ol SELECT o, n, (o * 7 + n * 13) % 20000 + 1 FROM generate_series(1, 300) o, "
      "generate_series(1, 10) n");
  Run("INSERT INTO ol VALUES (1000, 1, NULL), (1000, 2, 5000000000), (1000, 3, 0)");
  const std::string stock_level =
      "SELECT count(DISTINCT s.i) FROM ol, stock s WHERE ol.o BETWEEN 100 AND 119 AND s.w = 1 "
      "AND s.i = ol.i AND s.q < 50";
  EXPECT_THAT(Query("EXPLAIN " + stock_level),
              Contains(HasSubstr("IndexScan stock s index_join=stock_pkey[w = 1 AND i = <join "
                                 "key>] (at most 1024 build keys)")));
  // The answers are PostgreSQL 15's on the same data.
  EXPECT_THAT(Query(stock_level), ElementsAre("88"));
  EXPECT_THAT(Query("SELECT count(*) FROM ol, stock s WHERE ol.o BETWEEN 100 AND 119 AND "
                    "s.i = ol.i AND s.q < 50"),
              ElementsAre("206"));  // both warehouses: one probe per key finds two rows
  // A secondary index's column as the join key, and EXISTS (a semi join).
  EXPECT_THAT(Query("EXPLAIN SELECT count(*) FROM stock s JOIN ol ON s.q = ol.n WHERE ol.o = 5"),
              Contains(HasSubstr("index_join=stock_q[q = <join key>]")));
  EXPECT_THAT(Query("SELECT count(*) FROM stock s JOIN ol ON s.q = ol.n WHERE ol.o = 5"),
              ElementsAre("4000"));  // q = 1..10: 400 rows each
  EXPECT_THAT(Query("SELECT count(*) FROM stock s WHERE s.w = 2 AND EXISTS (SELECT 1 FROM ol "
                    "WHERE ol.i = s.i AND ol.o = 7)"),
              ElementsAre("10"));
  // NULL, out-of-range and missing keys match nothing; an empty build reads nothing.
  EXPECT_THAT(Query("SELECT count(*) FROM ol, stock s WHERE ol.o = 1000 AND s.i = ol.i"),
              ElementsAre("0"));
  EXPECT_THAT(Query("SELECT count(*) FROM ol, stock s WHERE ol.o = 5000 AND s.i = ol.i"),
              ElementsAre("0"));
  // NOT EXISTS must see the rows without a match: no index join.
  EXPECT_THAT(Query("EXPLAIN SELECT count(*) FROM stock s WHERE NOT EXISTS (SELECT 1 FROM ol "
                    "WHERE ol.i = s.i AND ol.o = 7)"),
              Not(Contains(HasSubstr("index_join"))));
  EXPECT_THAT(Query("SELECT count(*) FROM stock s WHERE NOT EXISTS (SELECT 1 FROM ol WHERE "
                    "ol.i = s.i AND ol.o = 7)"),
              ElementsAre("39980"));
  // Too many build keys (3,000 > 1,024): the probe side is scanned.
  EXPECT_THAT(Query("SELECT count(*) FROM ol, stock s WHERE s.w = 1 AND s.i = ol.i"),
              ElementsAre("3000"));
  // An expression of each side (CH's mod(w * i, 10000) = key) is a hash key
  // too: a computed column below the join, not a nested loop's residual.
  EXPECT_THAT(Query("EXPLAIN SELECT count(*) FROM stock s, ol WHERE mod(s.w * s.i, 20000) = "
                    "ol.i + 1"),
              Contains(HasSubstr("HashJoinProbe inner [")));
  EXPECT_THAT(Query("SELECT count(*) FROM stock s, ol WHERE mod(s.w * s.i, 20000) = ol.i + 1"),
              ElementsAre("6001"));
  // In a block, on the transaction thread, the same answers.
  Run("BEGIN");
  EXPECT_THAT(Query(stock_level), ElementsAre("88"));
  Run("UPDATE stock SET q = 99 WHERE w = 1 AND i IN (SELECT i FROM ol WHERE o = 100)");
  EXPECT_THAT(Query(stock_level), ElementsAre("82"));
  Run("ROLLBACK");
}

// The primary key's ordered index (storage/table/table.h) serves what
// PostgreSQL's btree primary keys serve: a prefix of a composite key (TPC-C's
// "the order lines of an order", "the oldest new order of a district") and a
// range of a key, on the transaction thread without a fork.
TEST_F(EngineSnapshotTest, PrimaryKeyPrefixesAndRangesUseTheKeysOrderedIndex) {
  Open(SnapshotRouting());
  Run("CREATE TABLE ol (w int, d int, o int, amount int, PRIMARY KEY (w, d, o))");
  Run("INSERT INTO ol SELECT g % 2, g % 10, g, g FROM generate_series(1, 20000) g");
  Run("CREATE TABLE k (id bigint PRIMARY KEY, v text)");
  Run("INSERT INTO k SELECT g, 'v' || g FROM generate_series(1, 20000) g");
  // ORDER BY ... LIMIT reads the first entries of the range, or the last.
  EXPECT_THAT(Query("EXPLAIN SELECT o FROM ol WHERE w = 1 AND d = 3 ORDER BY o LIMIT 1"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1 AND d = 3 first 1]")));
  EXPECT_THAT(Query("EXPLAIN SELECT v FROM k ORDER BY id DESC LIMIT 2 OFFSET 1"),
              Contains(HasSubstr("IndexScan k index=k_pkey[first 3 backward]")));
  // A condition the index does not fix: the probe cannot stop early.
  EXPECT_THAT(Query("EXPLAIN SELECT o FROM ol WHERE w = 1 AND d = 3 AND amount > 5 ORDER BY o "
                    "LIMIT 1"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1 AND d = 3]")));
  EXPECT_THAT(Query("EXPLAIN SELECT o FROM ol WHERE w = 1 ORDER BY d DESC, o DESC LIMIT 1"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1 first 1 backward]")));
  // Mixed directions are not one index order.
  EXPECT_THAT(Query("EXPLAIN SELECT o FROM ol WHERE w = 1 ORDER BY d DESC, o LIMIT 1"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1]")));
  EXPECT_THAT(Query("EXPLAIN SELECT sum(amount) FROM ol WHERE w = 1 AND d = 3 AND o < 100"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1 AND d = 3 AND o < 100]")));
  EXPECT_THAT(Query("EXPLAIN SELECT v FROM k WHERE id BETWEEN 5 AND 9"),
              Contains(HasSubstr("IndexScan k index=k_pkey[id >= 5 AND id <= 9]")));
  // Row values IN a list (go-tpc's Delivery), OR, and IN (constants): one
  // probe per branch.
  EXPECT_THAT(Query("EXPLAIN SELECT sum(amount) FROM ol WHERE (w, d, o) IN ((1, 3, 13), (0, 4, "
                    "24))"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[(w = 1 AND d = 3 AND o = 13) OR "
                                 "(w = 0 AND d = 4 AND o = 24)]")));
  // The optimizer factors the common w = 1 AND d = 3 out of the OR; each
  // branch is taken with it: whole keys.
  EXPECT_THAT(Query("EXPLAIN SELECT amount FROM ol WHERE (w, d, o) IN ((1, 3, 13), (1, 3, 23))"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[(w = 1 AND d = 3 AND o = 13) OR "
                                 "(w = 1 AND d = 3 AND o = 23)]")));
  EXPECT_THAT(Query("EXPLAIN SELECT v FROM k WHERE id IN (7, 9, 11) AND v <> 'x'"),
              Contains(HasSubstr("IndexScan k index=k_pkey[(id = 7) OR (id = 9) OR (id = 11)]")));
  EXPECT_THAT(Query("EXPLAIN SELECT v FROM k WHERE id < 3 OR v = 'v9'"),
              Contains(HasSubstr("TableScan k")));  // v has no index: a scan
  // A join key carries a constant to the other side (go-tpc's New-Order:
  // customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND ...): both
  // sides are probes, in either direction.
  Run("CREATE TABLE wh (w int PRIMARY KEY, tax int)");
  Run("INSERT INTO wh SELECT g, g FROM generate_series(0, 1) g");
  EXPECT_THAT(Query("EXPLAIN SELECT amount, tax FROM ol, wh WHERE wh.w = 1 AND ol.w = wh.w AND "
                    "d = 3 AND o = 13"),
              Contains(HasSubstr("IndexScan ol index=ol_pkey[w = 1 AND d = 3 AND o = 13]")));
  EXPECT_THAT(Query("EXPLAIN SELECT amount, tax FROM ol, wh WHERE ol.w = 1 AND ol.w = wh.w AND "
                    "d = 3 AND o = 13"),
              Contains(HasSubstr("IndexScan wh index=wh_pkey[w = 1]")));
  EXPECT_THAT(Query("SELECT amount, tax FROM ol, wh WHERE wh.w = 1 AND ol.w = wh.w AND d = 3 AND "
                    "o = 13"),
              ElementsAre("13|1"));
  SqlSession writer(*engine_);
  const uint64_t forks = engine_->snapshots()->stats().created;
  ASSERT_THAT(Query("SELECT sum(amount), count(*) FROM ol WHERE (w, d, o) IN ((1, 3, 13), (0, 4, "
                    "24), (1, 3, 13), (1, 5, 16))"),
              ElementsAre("37|2"));
  ASSERT_THAT(Query("SELECT string_agg(v, ',') FROM (SELECT v FROM k WHERE id IN (7, 9, 11) OR "
                    "(id > 19998 AND id <= 20000) ORDER BY v) s"),
              ElementsAre("v11,v19999,v20000,v7,v9"));
  writer.Execute("UPDATE ol SET amount = amount + 1 WHERE (w, d, o) IN ((1, 3, 13), (0, 4, 24))");
  ASSERT_THAT(Query("SELECT sum(amount) FROM ol WHERE (w, d, o) IN ((1, 3, 13), (0, 4, 24))"),
              ElementsAre("39"));
  writer.Execute("UPDATE ol SET amount = amount - 1 WHERE (w, d, o) IN ((1, 3, 13), (0, 4, 24))");
  for (int i = 1; i <= 5; i++) {
    // The oldest "new order" of a district goes, as TPC-C's Delivery does.
    const std::string oldest =
        Lines(writer.Execute("SELECT o FROM ol WHERE w = 1 AND d = 3 ORDER BY o LIMIT 1").back())
            .at(0);
    EXPECT_EQ(oldest, std::to_string(3 + 10 * (i - 1)));
    writer.Execute("DELETE FROM ol WHERE w = 1 AND d = 3 AND o = " + oldest);
    ASSERT_THAT(Query("SELECT count(*), min(o) FROM ol WHERE w = 1 AND d = 3"),
                ElementsAre(std::to_string(2000 - i) + "|" + std::to_string(3 + 10 * i)));
    ASSERT_THAT(Query("SELECT count(*) FROM ol WHERE w = 1 AND d = 3 AND o BETWEEN 0 AND 99"),
                ElementsAre(std::to_string(10 - i)));
    ASSERT_THAT(Query("SELECT min(v), max(v), count(*) FROM k WHERE id > 19997"),
                ElementsAre("v19998|v20000|3"));
    ASSERT_THAT(Query("SELECT v FROM k ORDER BY id DESC LIMIT 2 OFFSET 1"),
                ElementsAre("v19999", "v19998"));
    ASSERT_THAT(Query("SELECT o, amount FROM ol WHERE w = 1 AND d = 3 AND amount > 100 ORDER BY "
                      "o LIMIT 2"),
                ElementsAre("103|103", "113|113"));
    ASSERT_THAT(Query("SELECT d, o FROM ol WHERE w = 1 ORDER BY d DESC, o DESC LIMIT 1"),
                ElementsAre("9|19999"));
  }
  // An update of a key column moves the row in the ordered index.
  writer.Execute("UPDATE ol SET o = 100000 WHERE w = 1 AND d = 3 AND o = 53");
  EXPECT_THAT(Query("SELECT max(o) FROM ol WHERE w = 1 AND d = 3"), ElementsAre("100000"));
  EXPECT_THAT(Query("SELECT count(*) FROM ol WHERE w = 1 AND d = 3 AND o = 53"), ElementsAre("0"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks);
  // Past the thread's row limit: a snapshot answers, with the same rows.
  EXPECT_THAT(Query("SELECT count(*) FROM ol WHERE w = 0"), ElementsAre("10000"));
  EXPECT_EQ(engine_->snapshots()->stats().created, forks + 1);
}

TEST_F(EngineSnapshotTest, MaxSnapshotAgeOptsIntoAnOlderSnapshotWithReadYourWrites) {
  Open(SnapshotRouting());
  Run("CREATE TABLE a (id int PRIMARY KEY)");
  Run("INSERT INTO a VALUES (1)");
  SqlSession lazy(*engine_);
  lazy.Execute("SET forktail.max_snapshot_age_ms = 60000");
  EXPECT_THAT(Lines(lazy.Execute("SELECT count(*) FROM a").back()), ElementsAre("1"));
  Run("INSERT INTO a VALUES (2)");
  // Opted in: the snapshot it read before is young enough.
  EXPECT_THAT(Lines(lazy.Execute("SELECT count(*) FROM a").back()), ElementsAre("1"));
  // By default: fresh.
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("2"));
  // Its own write it always sees.
  lazy.Execute("INSERT INTO a VALUES (3)");
  EXPECT_THAT(Lines(lazy.Execute("SELECT count(*) FROM a").back()), ElementsAre("3"));
}

// SHOW forktail.last_read: where the session's last SELECT ran and how old
// its data was (what the CH-benCHmark driver reports per query).
TEST_F(EngineSnapshotTest, LastReadShowsWhereAReadRanAndHowFreshItWas) {
  Open(SnapshotRouting());
  auto last_read = [&](SqlSession& s) {
    return Lines(s.Execute("SHOW forktail.last_read").back()).at(0);
  };
  EXPECT_EQ(last_read(*session_), "where=none");
  Run("CREATE TABLE a (id int PRIMARY KEY)");
  Run("INSERT INTO a VALUES (1)");
  EXPECT_THAT(Query("SELECT id FROM a WHERE id = 1"), ElementsAre("1"));
  EXPECT_EQ(last_read(*session_), "where=transaction_thread age_ms=0 commits_behind=0");
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("1"));
  EXPECT_THAT(last_read(*session_), MatchesRegex("where=snapshot age_ms=[0-9.]+ commits_behind=0"));
  SqlSession lazy(*engine_);
  lazy.Execute("SET forktail.max_snapshot_age_ms = 60000");
  EXPECT_THAT(Lines(lazy.Execute("SELECT count(*) FROM a").back()), ElementsAre("1"));
  Run("INSERT INTO a VALUES (2)");
  Run("INSERT INTO a VALUES (3)");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_THAT(Lines(lazy.Execute("SELECT count(*) FROM a").back()), ElementsAre("1"));
  const std::string text = last_read(lazy);
  EXPECT_THAT(text, MatchesRegex("where=snapshot age_ms=[0-9.]+ commits_behind=2"));
  EXPECT_GE(std::stod(text.substr(text.find("age_ms=") + 7)), 20.0) << text;
}

TEST_F(EngineSnapshotTest, AStaleSnapshotNobodyUsesIsRetired) {
  SqlFrontendOptions options = SnapshotRouting();
  options.snapshot.retire_idle_ms = 50;
  Open(options);
  Run("CREATE TABLE a (id int PRIMARY KEY)");
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("0"));
  auto live = [&] {
    size_t n = 0;
    for (const SnapshotInfo& info : engine_->snapshots()->List()) n += info.retired ? 0 : 1;
    return n;
  };
  // Idle but current: it stays.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(live(), 1u);
  // Idle and behind the last commit: retired, and its process goes.
  Run("INSERT INTO a VALUES (1)");
  for (int i = 0; i < 400 && !engine_->snapshots()->List().empty(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(engine_->snapshots()->List().empty());
  EXPECT_THAT(Query("SELECT count(*) FROM a"), ElementsAre("1"));
}

}  // namespace
}  // namespace forktail::testing
