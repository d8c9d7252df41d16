// Schema and initial population (clause 4.3.3.1) of the TPC-C tables, plus the
// CH-benCHmark's SUPPLIER, NATION and REGION. DDL and the view follow the
// statements a public driver (go-tpc) sends; rows go in by COPY FROM STDIN.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "tpcc.h"

namespace tpcc {
namespace {

const char* const kSchema[] = {
    "CREATE TABLE warehouse (w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), "
    "w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), "
    "w_tax DECIMAL(4, 4), w_ytd DECIMAL(12, 2), PRIMARY KEY (w_id))",
    "CREATE TABLE district (d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), "
    "d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), "
    "d_zip CHAR(9), d_tax DECIMAL(4, 4), d_ytd DECIMAL(12, 2), d_next_o_id INT, "
    "PRIMARY KEY (d_w_id, d_id))",
    "CREATE TABLE customer (c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, "
    "c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), "
    "c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), "
    "c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2), c_credit_lim DECIMAL(12, 2), "
    "c_discount DECIMAL(4, 4), c_balance DECIMAL(12, 2), c_ytd_payment DECIMAL(12, 2), "
    "c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500), "
    "PRIMARY KEY (c_w_id, c_d_id, c_id))",
    "CREATE INDEX idx_customer ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE TABLE history (h_c_id INT NOT NULL, h_c_d_id INT NOT NULL, h_c_w_id INT NOT NULL, "
    "h_d_id INT NOT NULL, h_w_id INT NOT NULL, h_date TIMESTAMP, h_amount DECIMAL(6, 2), "
    "h_data VARCHAR(24))",
    "CREATE TABLE new_order (no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL, "
    "PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
    "CREATE TABLE orders (o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, "
    "o_c_id INT, o_entry_d TIMESTAMP, o_carrier_id INT, o_ol_cnt INT, o_all_local INT, "
    "PRIMARY KEY (o_w_id, o_d_id, o_id))",
    "CREATE INDEX idx_order ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    "CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, "
    "ol_number INT NOT NULL, ol_i_id INT NOT NULL, ol_supply_w_id INT, ol_delivery_d TIMESTAMP, "
    "ol_quantity INT, ol_amount DECIMAL(6, 2), ol_dist_info CHAR(24), "
    "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
    "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, "
    "s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), "
    "s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), "
    "s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT, "
    "s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
    "CREATE TABLE item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), "
    "i_price DECIMAL(5, 2), i_data VARCHAR(50), PRIMARY KEY (i_id))",
};

const char* const kChSchema[] = {
    "CREATE TABLE nation (n_nationkey BIGINT NOT NULL, n_name CHAR(25) NOT NULL, "
    "n_regionkey BIGINT NOT NULL, n_comment VARCHAR(152), PRIMARY KEY (n_nationkey))",
    "CREATE TABLE region (r_regionkey BIGINT NOT NULL, r_name CHAR(25) NOT NULL, "
    "r_comment VARCHAR(152), PRIMARY KEY (r_regionkey))",
    "CREATE TABLE supplier (s_suppkey BIGINT NOT NULL, s_name CHAR(25) NOT NULL, "
    "s_address VARCHAR(40) NOT NULL, s_nationkey BIGINT NOT NULL, s_phone CHAR(15) NOT NULL, "
    "s_acctbal DECIMAL(15, 2) NOT NULL, s_comment VARCHAR(101) NOT NULL, "
    "PRIMARY KEY (s_suppkey))",
    // Query 15's view, as the CH-benCHmark defines it.
    "CREATE VIEW revenue1 (supplier_no, total_revenue) AS (SELECT mod((s_w_id * s_i_id), 10000) "
    "AS supplier_no, sum(ol_amount) AS total_revenue FROM order_line, stock WHERE "
    "ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND ol_delivery_d >= '2007-01-02 00:00:00' "
    "GROUP BY mod((s_w_id * s_i_id), 10000))",
};

// TPC-H's nations and regions; CH-benCHmark maps a customer to nation
// ascii(c_state[0]) - 65, so the keys are 0..24.
struct Nation {
  const char* name;
  int region;
};
const Nation kNations[] = {
    {"ALGERIA", 0},      {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
    {"EGYPT", 4},        {"ETHIOPIA", 0},  {"FRANCE", 3}, {"GERMANY", 3},
    {"INDIA", 2},        {"INDONESIA", 2}, {"IRAN", 4},   {"IRAQ", 4},
    {"JAPAN", 2},        {"JORDAN", 4},    {"KENYA", 0},  {"MOROCCO", 0},
    {"MOZAMBIQUE", 0},   {"PERU", 1},      {"CHINA", 2},  {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},   {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
    {"UNITED STATES", 1}};
const char* const kRegions[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

std::string fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

// Appends one text-format COPY row.
class Row {
 public:
  explicit Row(std::string* out) : out_(out) {}
  ~Row() { out_->push_back('\n'); }
  Row& operator<<(const std::string& v) {
    sep().append(v);
    return *this;
  }
  Row& operator<<(const char* v) {
    sep().append(v);
    return *this;
  }
  Row& operator<<(int64_t v) {
    sep().append(std::to_string(v));
    return *this;
  }
  Row& null() {
    sep().append("\\N");
    return *this;
  }

 private:
  std::string& sep() {
    if (!first_) out_->push_back('\t');
    first_ = false;
    return *out_;
  }
  std::string* out_;
  bool first_ = true;
};

// A progress bar on a terminal, a line per step otherwise.
class Progress {
 public:
  explicit Progress(int64_t total) : total_(total), tty_(isatty(STDERR_FILENO) != 0) {}
  void step(int64_t done, const std::string& what) {
    if (tty_) {
      int width = 40, filled = static_cast<int>(width * done / total_);
      std::fprintf(stderr, "\r[%s%s] %3d%% %-30s", std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), static_cast<int>(100 * done / total_),
                   what.c_str());
      if (done == total_) std::fputc('\n', stderr);
    } else {
      std::fprintf(stderr, "load: %s (%lld/%lld)\n", what.c_str(), static_cast<long long>(done),
                   static_cast<long long>(total_));
    }
  }

 private:
  int64_t total_;
  bool tty_;
};

class Loader {
 public:
  Loader(Conn& conn, uint64_t seed) : conn_(conn), rnd_(seed) {}

  // Sends buf as the COPY data of table and empties it.
  void copy(const char* table, std::string& buf) {
    conn_.copy_begin(std::string("COPY ") + table + " FROM STDIN");
    conn_.copy_put(buf);
    conn_.copy_end();
    buf.clear();
  }

  void items() {
    std::string buf;
    for (int64_t i = 1; i <= kItems; i++) {
      Row(&buf) << i << rnd_.uniform(1, 10000) << rnd_.astring(14, 24)
                << fixed(rnd_.uniform(100, 10000) / 100.0, 2) << rnd_.data_with_original();
    }
    copy("item", buf);
  }

  void warehouse(int64_t w) {
    std::string buf;
    Row(&buf) << w << rnd_.astring(6, 10) << rnd_.astring(10, 20) << rnd_.astring(10, 20)
              << rnd_.astring(10, 20) << rnd_.letters(2) << zip()
              << fixed(rnd_.uniform(0, 2000) / 10000.0, 4) << "300000.00";
    copy("warehouse", buf);
    for (int64_t d = 1; d <= kDistricts; d++) {
      Row(&buf) << d << w << rnd_.astring(6, 10) << rnd_.astring(10, 20) << rnd_.astring(10, 20)
                << rnd_.astring(10, 20) << rnd_.letters(2) << zip()
                << fixed(rnd_.uniform(0, 2000) / 10000.0, 4) << "30000.00" << int64_t{3001};
    }
    copy("district", buf);
  }

  void stock(int64_t w) {
    std::string buf;
    for (int64_t i = 1; i <= kItems; i++) {
      Row row(&buf);
      row << i << w << rnd_.uniform(10, 100);
      for (int d = 0; d < kDistricts; d++) row << rnd_.astring(24, 24);
      row << int64_t{0} << int64_t{0} << int64_t{0} << rnd_.data_with_original();
    }
    copy("stock", buf);
  }

  void district(int64_t w, int64_t d) {
    std::string customers, history, orders, lines, new_orders;
    for (int64_t c = 1; c <= kCustomers; c++) {
      int name = c <= 1000 ? static_cast<int>(c - 1)
                           : static_cast<int>(rnd_.nurand(255, 0, 999, kCLastLoad));
      Row(&customers) << c << d << w << rnd_.astring(8, 16) << "OE" << last_name(name)
                      << rnd_.astring(10, 20) << rnd_.astring(10, 20) << rnd_.astring(10, 20)
                      << rnd_.astring(2, 2) << zip() << rnd_.nstring(16, 16) << kLoadTimestamp
                      << (rnd_.uniform(1, 10) == 1 ? "BC" : "GC") << "50000.00"
                      << fixed(rnd_.uniform(0, 5000) / 10000.0, 4) << "-10.00"
                      << "10.00" << int64_t{1} << int64_t{0} << rnd_.astring(300, 500);
      Row(&history) << c << d << w << d << w << kLoadTimestamp << "10.00" << rnd_.astring(12, 24);
    }
    std::vector<int64_t> perm(kCustomers);
    std::iota(perm.begin(), perm.end(), 1);
    for (size_t i = perm.size() - 1; i > 0; i--) {
      std::swap(perm[i], perm[static_cast<size_t>(rnd_.uniform(0, static_cast<int64_t>(i)))]);
    }
    for (int64_t o = 1; o <= kOrders; o++) {
      bool delivered = o < 2101;
      int64_t ol_cnt = rnd_.uniform(5, 15);
      Row row(&orders);
      row << o << d << w << perm[static_cast<size_t>(o - 1)] << kLoadTimestamp;
      if (delivered) {
        row << rnd_.uniform(1, 10);
      } else {
        row.null();
      }
      row << ol_cnt << int64_t{1};
      for (int64_t n = 1; n <= ol_cnt; n++) {
        Row line(&lines);
        line << o << d << w << n << rnd_.uniform(1, kItems) << w;
        if (delivered) {
          line << kLoadTimestamp;
        } else {
          line.null();
        }
        line << int64_t{5}
             << (delivered ? std::string("0.00") : fixed(rnd_.uniform(1, 999999) / 100.0, 2))
             << rnd_.astring(24, 24);
      }
      if (!delivered) Row(&new_orders) << o << d << w;
    }
    copy("customer", customers);
    copy("history", history);
    copy("orders", orders);
    copy("order_line", lines);
    copy("new_order", new_orders);
  }

  void ch_tables() {
    std::string buf;
    for (int r = 0; r < 5; r++) Row(&buf) << int64_t{r} << kRegions[r] << rnd_.astring(31, 115);
    copy("region", buf);
    for (int n = 0; n < 25; n++) {
      Row(&buf) << int64_t{n} << kNations[n].name << int64_t{kNations[n].region}
                << rnd_.astring(31, 114);
    }
    copy("nation", buf);
    for (int64_t s = 0; s < kSuppliers; s++) {
      char name[32];
      std::snprintf(name, sizeof(name), "Supplier#%09lld", static_cast<long long>(s));
      // Like TPC-H, a few suppliers have complaints (query 16 leaves them out).
      std::string comment = rnd_.astring(25, 85);
      if (rnd_.uniform(1, 200) == 1) comment += " bad Complaints";
      Row(&buf) << s << name << rnd_.astring(10, 40) << rnd_.uniform(0, 24) << rnd_.nstring(15, 15)
                << fixed(rnd_.uniform(-99999, 999999) / 100.0, 2) << comment;
    }
    copy("supplier", buf);
  }

 private:
  std::string zip() { return rnd_.nstring(4, 4) + "11111"; }
  Conn& conn_;
  Random rnd_;
};

}  // namespace

void load(const LoadOptions& options) {
  Conn conn(options.conninfo);
  for (const char* ddl : kSchema) conn.query(ddl);
  if (options.ch) {
    for (const char* ddl : kChSchema) conn.query(ddl);
  }
  auto start = std::chrono::steady_clock::now();
  Loader loader(conn, options.seed);
  int64_t total =
      1 + static_cast<int64_t>(options.warehouses) * (2 + kDistricts) + (options.ch ? 1 : 0);
  int64_t done = 0;
  Progress progress(total);
  loader.items();
  progress.step(++done, "item");
  if (options.ch) {
    loader.ch_tables();
    progress.step(++done, "supplier, nation, region");
  }
  for (int64_t w = 1; w <= options.warehouses; w++) {
    std::string label = "warehouse " + std::to_string(w) + "/" + std::to_string(options.warehouses);
    loader.warehouse(w);
    progress.step(++done, label + ": district");
    loader.stock(w);
    progress.step(++done, label + ": stock");
    for (int64_t d = 1; d <= kDistricts; d++) {
      loader.district(w, d);
      progress.step(++done, label + ": district " + std::to_string(d));
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "load: %d warehouse(s) in %.1f s\n", options.warehouses, secs);
}

}  // namespace tpcc
