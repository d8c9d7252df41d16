// The five TPC-C transactions (clause 2.4-2.8) as SQL over the wire. Inputs
// follow the spec. Statements are point statements by primary key where the
// spec names a row (as BenchBase's TPC-C does: one SELECT per item and per
// stock row), plus the range and join statements the spec asks for
// (customer by last name, oldest new order, the stock-level count).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <tuple>

#include "tpcc.h"

namespace tpcc {
namespace {

std::string now_timestamp() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string placeholders(int rows, int cols, int first = 1) {
  std::string s;
  for (int r = 0; r < rows; r++) {
    s += r == 0 ? "(" : ",(";
    for (int c = 0; c < cols; c++) {
      s += (c == 0 ? "$" : ",$") + std::to_string(first + r * cols + c);
    }
    s += ")";
  }
  return s;
}

}  // namespace

Terminal::Terminal(const std::string& conninfo, int warehouses, int home_warehouse, uint64_t seed,
                   TxnForm form)
    : conn_(conninfo), form_(form), source_(warehouses, home_warehouse, seed) {
  if (form_ == TxnForm::kProcedures) {
    // The procedures' signatures (tpcc_procedures.sql; procedure_args).
    for (int n = kMinLines; n <= kMaxLines; n++) {
      conn_.prepare("call_new_order_" + std::to_string(n),
                    "CALL new_order" + placeholders(1, 3 + 3 * n));
    }
    conn_.prepare("call_payment", "CALL payment" + placeholders(1, 8));
    conn_.prepare("call_order_status", "CALL order_status" + placeholders(1, 5));
    conn_.prepare("call_delivery", "CALL delivery" + placeholders(1, 2));
    conn_.prepare("call_stock_level", "CALL stock_level" + placeholders(1, 3));
    return;
  }
  const std::pair<const char*, const char*> statements[] = {
      // New-Order
      {"no_customer",
       "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND "
       "c_id = $3"},
      {"no_warehouse", "SELECT w_tax FROM warehouse WHERE w_id = $1"},
      {"no_item", "SELECT i_price, i_name, i_data FROM item WHERE i_id = $1"},
      {"no_stock",
       "SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
       "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = $1 AND "
       "s_w_id = $2 FOR UPDATE"},
      {"no_district",
       "SELECT d_next_o_id, d_tax FROM district WHERE d_id = $1 AND d_w_id = $2 FOR UPDATE"},
      {"no_district_update",
       "UPDATE district SET d_next_o_id = $1 WHERE d_id = $2 AND d_w_id = $3"},
      {"no_order",
       "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) "
       "VALUES ($1, $2, $3, $4, $5, $6, $7)"},
      {"no_new_order", "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)"},
      {"no_stock_update",
       "UPDATE stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, "
       "s_remote_cnt = s_remote_cnt + $3 WHERE s_i_id = $4 AND s_w_id = $5"},
      // Payment
      {"pay_district_update",
       "UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3"},
      {"pay_district",
       "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE "
       "d_w_id = $1 AND d_id = $2"},
      {"pay_warehouse_update", "UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2"},
      {"pay_warehouse",
       "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE "
       "w_id = $1"},
      {"pay_customer_by_name",
       "SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY "
       "c_first"},
      {"pay_customer",
       "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, "
       "c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE "
       "c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE"},
      {"pay_customer_update",
       "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, "
       "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = $5"},
      {"pay_customer_data",
       "SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"},
      {"pay_customer_update_bc",
       "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, "
       "c_payment_cnt = c_payment_cnt + 1, c_data = $3 WHERE c_w_id = $4 AND c_d_id = $5 AND "
       "c_id = $6"},
      {"pay_history",
       "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, "
       "h_data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
      // Order-Status
      {"os_customer_by_name",
       "SELECT c_balance, c_first, c_middle, c_id FROM customer WHERE c_w_id = $1 AND "
       "c_d_id = $2 AND c_last = $3 ORDER BY c_first"},
      {"os_customer",
       "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND "
       "c_d_id = $2 AND c_id = $3"},
      {"os_order",
       "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND "
       "o_c_id = $3 ORDER BY o_id DESC LIMIT 1"},
      {"os_lines",
       "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
       "WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3"},
      // Delivery
      {"dl_new_order",
       "SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id ASC "
       "LIMIT 1 FOR UPDATE"},
      {"dl_delete", "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3"},
      {"dl_order",
       "SELECT o_c_id, o_ol_cnt FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3"},
      {"dl_order_update",
       "UPDATE orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4"},
      {"dl_lines_update",
       "UPDATE order_line SET ol_delivery_d = $1 WHERE ol_w_id = $2 AND ol_d_id = $3 AND "
       "ol_o_id = $4 AND ol_number = $5"},
      {"dl_lines_sum",
       "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND "
       "ol_o_id = $3"},
      {"dl_customer_update",
       "UPDATE customer SET c_balance = c_balance + $1, c_delivery_cnt = c_delivery_cnt + 1 "
       "WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4"},
      // Stock-Level
      {"sl_district", "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2"},
      {"sl_count",
       "SELECT COUNT(DISTINCT (s_i_id)) FROM order_line, stock WHERE ol_w_id = $1 AND "
       "ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $4 AND s_w_id = $5 AND s_i_id = ol_i_id "
       "AND s_quantity < $6"},
  };
  for (const auto& [name, sql] : statements) conn_.prepare(name, sql);
  for (int n = kMinLines; n <= kMaxLines; n++) {
    conn_.prepare("no_lines_" + std::to_string(n),
                  "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
                  "ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " +
                      placeholders(n, 9));
  }
}

TxnType InputSource::pick() {
  int64_t r = rnd_.uniform(1, 100);
  if (r <= 45) return kNewOrder;
  if (r <= 88) return kPayment;
  if (r <= 92) return kOrderStatus;
  if (r <= 96) return kDelivery;
  return kStockLevel;
}

void InputSource::draw(TxnType type, TxnInputs* in) {
  in->w = home_w_;
  in->d = rnd_.uniform(1, kDistricts);
  in->c_w = home_w_;
  in->c_d = in->d;
  in->by_name = false;
  in->c_id = rnd_.nurand(1023, 1, kCustomers, kCId);
  switch (type) {
    case kNewOrder: {
      int64_t n = rnd_.uniform(kMinLines, kMaxLines);
      bool rollback = rnd_.uniform(1, 100) == 1;
      in->lines.clear();
      while (static_cast<int64_t>(in->lines.size()) < n) {
        int64_t item = rnd_.nurand(8191, 1, kItems, kOlIId);
        int64_t supply_w = home_w_;
        if (warehouses_ > 1 && rnd_.uniform(1, 100) == 1) {
          do supply_w = rnd_.uniform(1, warehouses_);
          while (supply_w == home_w_);
        }
        bool dup = std::any_of(in->lines.begin(), in->lines.end(),
                               [&](const OrderLine& l) { return l.item == item; });
        if (!dup) in->lines.push_back({item, supply_w, rnd_.uniform(1, 10)});
      }
      // Clause 2.4.1.4: 1% of New-Orders name an unused item and roll back.
      if (rollback) in->lines.back().item = kItems + 1;
      break;
    }
    case kPayment:
      if (warehouses_ > 1 && rnd_.uniform(1, 100) > 85) {
        do in->c_w = rnd_.uniform(1, warehouses_);
        while (in->c_w == home_w_);
        in->c_d = rnd_.uniform(1, kDistricts);
      }
      [[fallthrough]];
    case kOrderStatus:
      in->by_name = rnd_.uniform(1, 100) <= 60;
      in->c_last = last_name(static_cast<int>(rnd_.nurand(255, 0, 999, kCLastRun)));
      in->amount_cents = rnd_.uniform(100, 500000);
      break;
    case kDelivery:
      in->carrier = rnd_.uniform(1, 10);
      break;
    case kStockLevel:
      in->threshold = rnd_.uniform(10, 20);
      break;
    case kTxnTypes:
      break;
  }
}

bool Terminal::run(TxnType type) {
  if (form_ == TxnForm::kProcedures) return call(type);
  conn_.query("BEGIN");
  bool committed = true;
  switch (type) {
    case kNewOrder:
      committed = new_order();
      break;
    case kPayment:
      payment();
      break;
    case kOrderStatus:
      order_status();
      break;
    case kDelivery:
      delivery();
      break;
    case kStockLevel:
      stock_level();
      break;
    case kTxnTypes:
      break;
  }
  conn_.query(committed ? "COMMIT" : "ROLLBACK");
  return committed;
}

bool Terminal::call(TxnType type) {
  auto text = [](int64_t v) { return std::to_string(v); };
  auto boolean = [](bool v) { return std::string(v ? "true" : "false"); };
  const TxnInputs& in = in_;
  try {
    switch (type) {
      case kNewOrder: {
        std::vector<std::string> args = {text(in.w), text(in.d), text(in.c_id)};
        for (const OrderLine& l : in.lines) {
          args.insert(args.end(), {text(l.item), text(l.supply_w), text(l.quantity)});
        }
        conn_.run("call_new_order_" + std::to_string(in.lines.size()), args);
        break;
      }
      case kPayment:
        conn_.run("call_payment",
                  {text(in.w), text(in.d), text(in.c_w), text(in.c_d), text(in.c_id),
                   boolean(in.by_name), in.c_last, text(in.amount_cents)});
        break;
      case kOrderStatus:
        conn_.run("call_order_status",
                  {text(in.w), text(in.d), text(in.c_id), boolean(in.by_name), in.c_last});
        break;
      case kDelivery:
        conn_.run("call_delivery", {text(in.w), text(in.carrier)});
        break;
      case kStockLevel:
        conn_.run("call_stock_level", {text(in.w), text(in.d), text(in.threshold)});
        break;
      case kTxnTypes:
        break;
    }
  } catch (const SqlError& e) {
    // Clause 2.4.1.4: the unused item rolls the New-Order back (40000).
    if (type == kNewOrder && e.sqlstate() == "40000") return false;
    throw;
  }
  return true;
}

void Terminal::rollback() {
  if (form_ == TxnForm::kProcedures) return;  // a CALL is its own transaction
  try {
    conn_.query("ROLLBACK");
  } catch (const SqlError&) {
    // The block is gone already (or the connection): nothing to undo.
  }
}

bool Terminal::new_order() {
  std::string w = std::to_string(in_.w), d = std::to_string(in_.d);
  std::string n = std::to_string(in_.lines.size());
  bool all_local = std::all_of(in_.lines.begin(), in_.lines.end(),
                               [&](const OrderLine& l) { return l.supply_w == in_.w; });
  Result customer = conn_.run("no_customer", {w, d, std::to_string(in_.c_id)});
  double discount = customer.number(0, 0);
  Result warehouse = conn_.run("no_warehouse", {w});
  double w_tax = warehouse.number(0, 0);
  Result district = conn_.run("no_district", {d, w});
  int64_t o_id = district.integer(0, 0);
  double d_tax = district.number(0, 1);
  conn_.run("no_district_update", {std::to_string(o_id + 1), d, w});
  std::string o = std::to_string(o_id);
  conn_.run("no_order",
            {o, d, w, std::to_string(in_.c_id), now_timestamp(), n, all_local ? "1" : "0"});
  conn_.run("no_new_order", {o, d, w});

  // Lines in (supply warehouse, item) order, so that PostgreSQL's row locks on
  // stock are always taken in one order and two New-Orders cannot deadlock.
  std::vector<OrderLine> sorted = in_.lines;
  std::sort(sorted.begin(), sorted.end(), [](const OrderLine& a, const OrderLine& b) {
    return std::tie(a.supply_w, a.item) < std::tie(b.supply_w, b.item);
  });
  std::vector<std::string> line_params;
  double total = 0;
  int number = 0;
  for (const OrderLine& l : sorted) {
    std::string item = std::to_string(l.item), supply_w = std::to_string(l.supply_w);
    Result price = conn_.run("no_item", {item});
    if (price.rows() == 0) return false;  // the unused item: roll back
    Result stock = conn_.run("no_stock", {item, supply_w});
    int64_t quantity = stock.integer(0, 0);
    quantity = quantity >= l.quantity + 10 ? quantity - l.quantity : quantity - l.quantity + 91;
    conn_.run("no_stock_update", {std::to_string(quantity), std::to_string(l.quantity),
                                  l.supply_w == in_.w ? "0" : "1", item, supply_w});
    double amount = static_cast<double>(l.quantity) * price.number(0, 0);
    total += amount;
    line_params.insert(line_params.end(), {o, d, w, std::to_string(++number), item, supply_w,
                                           std::to_string(l.quantity), fixed2(amount),
                                           stock.text(0, 2 + static_cast<int>(in_.d - 1))});
  }
  conn_.run("no_lines_" + n, line_params);
  // The total the terminal would display (clause 2.4.3.3).
  total *= (1 - discount) * (1 + w_tax + d_tax);
  (void)total;
  return true;
}

int64_t Terminal::customer_by_name(int64_t w, int64_t d, const std::string& last,
                                   const char* stmt) {
  Result r = conn_.run(stmt, {std::to_string(w), std::to_string(d), last});
  if (r.rows() == 0) throw SqlError("02000", std::string(stmt) + ": no customer named " + last);
  // Clause 2.5.2.2: the customer at position ceil(n / 2) in c_first order.
  int column = r.columns() - 1;
  return r.integer((r.rows() + 1) / 2 - 1, column);
}

void Terminal::payment() {
  std::string w = std::to_string(in_.w), d = std::to_string(in_.d);
  std::string cw = std::to_string(in_.c_w), cd = std::to_string(in_.c_d);
  std::string amount = fixed2(static_cast<double>(in_.amount_cents) / 100.0);
  conn_.run("pay_district_update", {amount, w, d});
  Result district = conn_.run("pay_district", {w, d});
  conn_.run("pay_warehouse_update", {amount, w});
  Result warehouse = conn_.run("pay_warehouse", {w});
  int64_t c_id = in_.by_name
                     ? customer_by_name(in_.c_w, in_.c_d, in_.c_last, "pay_customer_by_name")
                     : in_.c_id;
  std::string c = std::to_string(c_id);
  Result customer = conn_.run("pay_customer", {cw, cd, c});
  if (customer.text(0, 9) == "BC") {
    Result data = conn_.run("pay_customer_data", {cw, cd, c});
    std::string c_data =
        c + " " + cd + " " + cw + " " + d + " " + w + " " + amount + " | " + data.text(0, 0);
    c_data.resize(std::min<size_t>(c_data.size(), 500));
    conn_.run("pay_customer_update_bc", {amount, amount, c_data, cw, cd, c});
  } else {
    conn_.run("pay_customer_update", {amount, amount, cw, cd, c});
  }
  std::string h_data = warehouse.text(0, 5) + "    " + district.text(0, 5);
  conn_.run("pay_history", {cd, cw, c, d, w, now_timestamp(), amount, h_data});
}

void Terminal::order_status() {
  std::string w = std::to_string(in_.w), d = std::to_string(in_.d);
  int64_t c_id = in_.c_id;
  if (in_.by_name) {
    c_id = customer_by_name(in_.w, in_.d, in_.c_last, "os_customer_by_name");
  } else {
    conn_.run("os_customer", {w, d, std::to_string(c_id)});
  }
  Result order = conn_.run("os_order", {w, d, std::to_string(c_id)});
  if (order.rows() > 0) conn_.run("os_lines", {w, d, order.text(0, 0)});
}

void Terminal::delivery() {
  std::string w = std::to_string(in_.w), carrier = std::to_string(in_.carrier);
  std::string now = now_timestamp();
  for (int64_t district = 1; district <= kDistricts; district++) {
    std::string d = std::to_string(district);
    Result oldest = conn_.run("dl_new_order", {w, d});
    if (oldest.rows() == 0) continue;  // clause 2.7.4.2: skipped district
    std::string o = oldest.text(0, 0);
    conn_.run("dl_delete", {w, d, o});
    Result order = conn_.run("dl_order", {w, d, o});
    conn_.run("dl_order_update", {carrier, w, d, o});
    // One UPDATE per line by its whole key: Forktail runs an UPDATE on a key
    // prefix inside a block as a scan, ~100 ms at one warehouse, and each later
    // statement of that block as slowly (see README.md).
    for (int64_t n = 1; n <= order.integer(0, 1); n++) {
      conn_.run("dl_lines_update", {now, w, d, o, std::to_string(n)});
    }
    Result sum = conn_.run("dl_lines_sum", {w, d, o});
    conn_.run("dl_customer_update", {sum.text(0, 0), w, d, order.text(0, 0)});
  }
}

void Terminal::stock_level() {
  std::string w = std::to_string(in_.w), d = std::to_string(in_.d);
  Result district = conn_.run("sl_district", {w, d});
  int64_t next = district.integer(0, 0);
  conn_.run("sl_count", {w, d, std::to_string(next), std::to_string(next - 20), w,
                         std::to_string(in_.threshold)});
}

}  // namespace tpcc
