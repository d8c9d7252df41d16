// pgbench against the end-to-end server: `pgbench -i` unchanged, runs in each
// query mode, and the TPC-B invariant afterwards (shared by pgbench_test.cc,
// the short version in `make test`, and e2e_longtest.cc, the issue's
// scale-10, 30-second version).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {

class PgbenchEndToEnd : public EndToEnd {
 protected:
  // pgbench's built-in TPC-B-like script, unchanged (its INSERT into
  // pgbench_history uses CURRENT_TIMESTAMP).
  static std::string Script() { return "-b tpcb-like"; }

  // `pgbench -i -s scale` as it is: create ... with (fillfactor=100),
  // truncate, copy ... with (freeze on), vacuum analyze, alter table ... add
  // primary key.
  void Init(int scale) {
    CommandResult r =
        RunCommand("pgbench -i -s " + std::to_string(scale) + " " + conninfo_ + " db");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("done in"), std::string::npos) << r.output;
    EXPECT_EQ(PsqlValue("select count(*) from pgbench_accounts"), std::to_string(100000 * scale));
  }

  // One run; `args` are pgbench's options (-M mode -c -j -t/-T). Returns its
  // output; no failed transaction allowed. -n: no vacuum and, above all, no
  // truncation of pgbench_history, whose deltas the invariant sums.
  // --max-tries: a block whose SELECT abalance changed before its COMMIT
  // (two clients drew the same account) fails with 40001 and is retried, as
  // PostgreSQL's SERIALIZABLE users do.
  std::string RunPgbench(const std::string& args) {
    CommandResult r =
        RunCommand("pgbench -n --max-tries 10 " + args + " " + Script() + " " + conninfo_ + " db");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("number of failed transactions: 0"), std::string::npos) << args << "\n"
                                                                                    << r.output;
    return r.output;
  }

  // sum(abalance) of accounts = sum(delta) of history = tellers' = branches'.
  void ExpectInvariant() {
    std::string accounts = PsqlValue("select sum(abalance) from pgbench_accounts");
    EXPECT_EQ(accounts, PsqlValue("select sum(delta) from pgbench_history"));
    EXPECT_EQ(accounts, PsqlValue("select sum(tbalance) from pgbench_tellers"));
    EXPECT_EQ(accounts, PsqlValue("select sum(bbalance) from pgbench_branches"));
  }
};

}  // namespace forktail::test
