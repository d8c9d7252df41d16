// The TPC-C and CH-benCHmark driver over the PostgreSQL protocol: schema and
// loader (tpcc_load.cc), the five transactions (tpcc_transactions.cc), the
// consistency conditions (tpcc_check.cc) and the analytical streams
// (ch_streams.cc). The driver is written against libpq alone and runs
// unchanged against PostgreSQL 15 and Forktail.
#pragma once

#include <array>
#include <chrono>
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

inline constexpr int kMinLines = 5, kMaxLines = 15;

struct OrderLine {
  int64_t item, supply_w, quantity;
};

// The inputs of one transaction (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1).
struct TxnInputs {
  int64_t w = 0;  // the terminal's home warehouse
  int64_t d = 0;
  int64_t c_w = 0, c_d = 0, c_id = 0;  // the customer (Payment: maybe remote)
  bool by_name = false;                // Payment, Order-Status: by c_last
  std::string c_last;
  int64_t amount_cents = 0;  // Payment
  int64_t carrier = 0;       // Delivery
  int64_t threshold = 0;     // Stock-Level
  // New-Order; clause 2.4.1.4: 1% of them end with an unused item (kItems + 1)
  // and roll back.
  std::vector<OrderLine> lines;
};

// A terminal's random stream of transaction types and inputs. Seeded, so the
// wire driver and the in-process one draw the same transactions.
class InputSource {
 public:
  InputSource(int warehouses, int home_warehouse, uint64_t seed)
      : rnd_(seed), warehouses_(warehouses), home_w_(home_warehouse) {}
  TxnType pick();  // the mix 45/43/4/4/4
  void draw(TxnType type, TxnInputs* in);

 private:
  Random rnd_;
  int warehouses_;
  int64_t home_w_;
};

// How a terminal sends a transaction: as the statements of a BEGIN ...
// COMMIT block (tpcc_transactions.cc), or as one `CALL name(arguments)` of
// the server's stored procedure (Forktail: tpcc_procedures.cc, registered by
// the process that serves; PostgreSQL: tpcc_procedures.sql).
enum class TxnForm { kStatements, kProcedures };

// One terminal: its own connection, prepared statements and random stream.
// Each call runs one transaction to its end (commit or the spec's rollback);
// a server error escapes as SqlError after the block was rolled back.
class Terminal {
 public:
  Terminal(const std::string& conninfo, int warehouses, int home_warehouse, uint64_t seed,
           TxnForm form = TxnForm::kStatements);
  TxnType pick() { return source_.pick(); }
  // Draws the inputs of one transaction; run() may then be called again
  // with the same inputs after a retryable error.
  void draw(TxnType type) { source_.draw(type, &in_); }
  // Runs the drawn transaction; returns false for a New-Order rolled back by
  // design (1% of them use an unused item number).
  bool run(TxnType type);
  void rollback();

 private:
  bool call(TxnType type);  // TxnForm::kProcedures
  bool new_order();
  void payment();
  void order_status();
  void delivery();
  void stock_level();
  int64_t customer_by_name(int64_t w, int64_t d, const std::string& last, const char* stmt);

  Conn conn_;
  TxnForm form_;
  InputSource source_;
  TxnInputs in_;  // the drawn transaction's
};

// An analytical query of the CH-benCHmark as the driver runs it.
struct ChQuery {
  std::string name;  // "q1" .. "q22"
  std::string sql;
};
// Reads the queries from a file of blocks that start with a line "-- qN".
std::vector<ChQuery> read_ch_queries(const std::string& path);

// One analytical query run by a stream.
struct ChRun {
  int stream;
  std::string query;
  double start_s, secs;  // since the start of the run
  int rows;
  std::string status;  // ok, cancelled, or the error
  // Forktail's SHOW forktail.last_read after the query: the age of the
  // snapshot it read and the commits made since that snapshot's fork, when
  // the query started (-1: not known, e.g. PostgreSQL).
  double snapshot_age_ms = -1;
  int64_t commits_behind = -1;
};
// An analytical stream (ch_streams.cc): runs `queries` in turn on `conn` until
// `deadline`, stream s starting at query 7 * s so that streams overlap
// different work; a query still running at the deadline is cancelled by the
// caller (PQcancel) and recorded as "cancelled". On a server that answers
// SHOW forktail.last_read (Forktail), each query's freshness is recorded too.
void run_ch_stream(Conn& conn, const std::vector<ChQuery>& queries, int stream,
                   std::chrono::steady_clock::time_point start,
                   std::chrono::steady_clock::time_point deadline, std::vector<ChRun>* runs);
// The runs as a JSON array's elements; adds the completed ones to *done.
std::string ch_runs_json(const std::vector<std::vector<ChRun>>& runs, int64_t* done);
std::string json_string(const std::string& s);
// Prints the first ten errors of a run to stderr (any thread).
void report_error(const std::string& what);

}  // namespace tpcc
