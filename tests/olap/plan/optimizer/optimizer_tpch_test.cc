// All 22 TPC-H queries bind and optimize into well-formed plans: no
// subquery left, every column id resolvable, no cross join left where the
// query joins on keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::CheckPlan;
using bindertest::TpchCatalog;

std::string QueryText(int n) {
  char name[16];
  snprintf(name, sizeof(name), "q%02d.sql", n);
  std::filesystem::path p =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" / "tpch" /
      name;
  if (!std::filesystem::exists(p)) p = std::filesystem::path("/work/tpch/queries") / name;
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountJoins(const LogicalOp& op, LogicalJoinKind kind) {
  int n = op.kind == LogicalOpKind::kJoin && op.join_kind == kind ? 1 : 0;
  for (const LogicalOpPtr& c : op.children) n += CountJoins(*c, kind);
  return n;
}

class TpchPlanTest : public ::testing::TestWithParam<int> {
 protected:
  static TpchCatalog& Catalog() {
    static TpchCatalog* c = new TpchCatalog(1);
    return *c;
  }
};

TEST_P(TpchPlanTest, BindsAndOptimizes) {
  int q = GetParam();
  std::string text = QueryText(q);
  ASSERT_FALSE(text.empty()) << "q" << q;
  LogicalOpPtr bound;
  try {
    bound = bindertest::BindSql(text, Catalog().catalog()).plan;
  } catch (const DbError& e) {
    FAIL() << "q" << q << " bind: " << e.sqlstate() << " " << e.what() << " at " << e.position();
  }
  ASSERT_EQ(CheckPlan(*bound), "") << PlanToString(*bound, false);
  LogicalOpPtr opt = Optimize(ClonePlan(*bound), Catalog().catalog());
  std::string printed = PlanToString(*opt);
  EXPECT_EQ(CheckPlan(*opt), "") << printed;
  EXPECT_EQ(CountJoins(*opt, LogicalJoinKind::kCross), 0) << "q" << q << "\n" << printed;
  EXPECT_EQ(opt->columns.size(), bound->columns.size());
  for (size_t i = 0; i < opt->columns.size() && i < bound->columns.size(); i++) {
    EXPECT_EQ(opt->columns[i].name, bound->columns[i].name);
    EXPECT_EQ(opt->columns[i].id, bound->columns[i].id);
  }
}

INSTANTIATE_TEST_SUITE_P(All, TpchPlanTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "q" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace forktail
