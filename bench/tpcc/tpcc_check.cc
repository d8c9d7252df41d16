// TPC-C consistency conditions 1-4 (clause 3.3.2.1-3.3.2.4), per warehouse
// and district, from plain aggregates the driver compares itself, so a
// failure names the district and both sides.
#include <cmath>
#include <cstdio>
#include <map>

#include "tpcc.h"

namespace tpcc {
namespace {

struct DistrictState {
  double ytd = 0;
  int64_t next_o_id = 0;
  int64_t max_o_id = -1, sum_ol_cnt = 0;
  int64_t max_no = -1, min_no = -1, count_no = 0;
  int64_t count_ol = 0;
};

bool cents_equal(double a, double b) { return std::llround(a * 100) == std::llround(b * 100); }

}  // namespace

bool check_consistency(Conn& conn, int warehouses) {
  bool ok = true;
  auto fail = [&](int64_t w, int64_t d, const char* condition, const std::string& detail) {
    std::fprintf(stderr, "check: FAILED condition %s warehouse %lld district %lld: %s\n", condition,
                 static_cast<long long>(w), static_cast<long long>(d), detail.c_str());
    ok = false;
  };
  for (int64_t w = 1; w <= warehouses; w++) {
    std::string ws = std::to_string(w);
    std::map<int64_t, DistrictState> ds;
    Result districts =
        conn.query("SELECT d_id, d_ytd, d_next_o_id FROM district WHERE d_w_id = " + ws);
    for (int r = 0; r < districts.rows(); r++) {
      DistrictState& s = ds[districts.integer(r, 0)];
      s.ytd = districts.number(r, 1);
      s.next_o_id = districts.integer(r, 2);
    }
    Result orders =
        conn.query("SELECT o_d_id, max(o_id), sum(o_ol_cnt) FROM orders WHERE o_w_id = " + ws +
                   " GROUP BY o_d_id");
    for (int r = 0; r < orders.rows(); r++) {
      DistrictState& s = ds[orders.integer(r, 0)];
      s.max_o_id = orders.integer(r, 1);
      s.sum_ol_cnt = orders.integer(r, 2);
    }
    Result new_orders = conn.query(
        "SELECT no_d_id, max(no_o_id), min(no_o_id), count(*) FROM new_order WHERE no_w_id = " +
        ws + " GROUP BY no_d_id");
    for (int r = 0; r < new_orders.rows(); r++) {
      DistrictState& s = ds[new_orders.integer(r, 0)];
      s.max_no = new_orders.integer(r, 1);
      s.min_no = new_orders.integer(r, 2);
      s.count_no = new_orders.integer(r, 3);
    }
    Result lines = conn.query("SELECT ol_d_id, count(*) FROM order_line WHERE ol_w_id = " + ws +
                              " GROUP BY ol_d_id");
    for (int r = 0; r < lines.rows(); r++) ds[lines.integer(r, 0)].count_ol = lines.integer(r, 1);
    Result warehouse = conn.query("SELECT w_ytd FROM warehouse WHERE w_id = " + ws);

    // 1: W_YTD = sum(D_YTD).
    double sum_ytd = 0;
    for (const auto& [d, s] : ds) sum_ytd += s.ytd;
    double w_ytd = warehouse.number(0, 0);
    if (!cents_equal(w_ytd, sum_ytd)) {
      fail(w, 0, "1",
           "w_ytd " + warehouse.text(0, 0) + " != sum(d_ytd) " + std::to_string(sum_ytd));
    }
    if (static_cast<int>(ds.size()) != kDistricts) {
      fail(w, 0, "1-4", std::to_string(ds.size()) + " districts");
    }
    for (const auto& [d, s] : ds) {
      // 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) (if the district has new orders).
      if (s.next_o_id - 1 != s.max_o_id || (s.count_no > 0 && s.max_no != s.max_o_id)) {
        fail(w, d, "2",
             "d_next_o_id - 1 = " + std::to_string(s.next_o_id - 1) + ", max(o_id) = " +
                 std::to_string(s.max_o_id) + ", max(no_o_id) = " + std::to_string(s.max_no));
      }
      // 3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER rows).
      if (s.count_no > 0 && s.max_no - s.min_no + 1 != s.count_no) {
        fail(w, d, "3",
             "max - min + 1 = " + std::to_string(s.max_no - s.min_no + 1) +
                 ", count = " + std::to_string(s.count_no));
      }
      // 4: sum(O_OL_CNT) = count(ORDER-LINE rows).
      if (s.sum_ol_cnt != s.count_ol) {
        fail(w, d, "4",
             "sum(o_ol_cnt) = " + std::to_string(s.sum_ol_cnt) +
                 ", order lines = " + std::to_string(s.count_ol));
      }
    }
    std::fprintf(stderr, "check: warehouse %lld: conditions 1-4 %s\n", static_cast<long long>(w),
                 ok ? "hold" : "FAIL");
  }
  return ok;
}

}  // namespace tpcc
