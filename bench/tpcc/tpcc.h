// The TPC-C and CH-benCHmark driver over the PostgreSQL protocol: schema and
// loader (tpcc_load.cc), the five transactions (tpcc_transactions.cc), the
// consistency conditions (tpcc_check.cc) and the analytical streams
// (ch_streams.cc). The driver is written against libpq alone and runs
// unchanged against PostgreSQL 15 and Forktail.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pg_conn.h"
#include "tpcc_random.h"

namespace tpcc {

// The load date of every row the loader writes: a constant, so that two
// servers loaded with the same seed hold the same data (the CH queries'
// answers are compared across them).
inline constexpr const char* kLoadTimestamp = "2026-01-01 00:00:00";
inline constexpr int kItems = 100000;
inline constexpr int kDistricts = 10;
inline constexpr int kCustomers = 3000;  // per district
inline constexpr int kOrders = 3000;     // per district
inline constexpr int kSuppliers = 10000;

struct LoadOptions {
  std::string conninfo;
  int warehouses = 1;
  bool ch = true;  // SUPPLIER, NATION, REGION and the view revenue1 as well
  uint64_t seed = 1;
};
void load(const LoadOptions& options);

// Clause 3.3.2.1-4; prints each condition per warehouse, returns false if one fails.
bool check_consistency(Conn& conn, int warehouses);

enum TxnType { kNewOrder, kPayment, kOrderStatus, kDelivery, kStockLevel, kTxnTypes };
inline constexpr std::array<const char*, kTxnTypes> kTxnNames = {
    "new_order", "payment", "order_status", "delivery", "stock_level"};

// One terminal: its own connection, prepared statements and random stream.
// Each call runs one transaction to its end (commit or the spec's rollback);
// a server error escapes as SqlError after the block was rolled back.
class Terminal {
 public:
  Terminal(const std::string& conninfo, int warehouses, int home_warehouse, uint64_t seed);
  TxnType pick();  // the mix 45/43/4/4/4
  // Draws the inputs of one transaction; run() may then be called again
  // with the same inputs after a retryable error.
  void draw(TxnType type);
  // Runs the drawn transaction; returns false for a New-Order rolled back by
  // design (1% of them use an unused item number).
  bool run(TxnType type);
  void rollback();

 private:
  struct OrderLine {
    int64_t item, supply_w, quantity;
  };
  bool new_order();
  void payment();
  void order_status();
  void delivery();
  void stock_level();
  int64_t customer_by_name(int64_t w, int64_t d, const std::string& last, const char* stmt);

  Conn conn_;
  Random rnd_;
  int warehouses_;
  int64_t home_w_;
  // Inputs of the drawn transaction.
  int64_t d_ = 0, c_w_ = 0, c_d_ = 0, c_id_ = 0, carrier_ = 0, threshold_ = 0;
  std::string c_last_, amount_;
  bool by_name_ = false;
  std::vector<OrderLine> lines_;
};

// An analytical query of the CH-benCHmark as the driver runs it.
struct ChQuery {
  std::string name;  // "q1" .. "q22"
  std::string sql;
};
// Reads the queries from a file of blocks that start with a line "-- qN".
std::vector<ChQuery> read_ch_queries(const std::string& path);

}  // namespace tpcc
