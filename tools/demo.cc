// `forktail demo`: the storage engine end to end, in memory. Creates the data
// directory, creates a table, loads generated rows, scans two columns through
// the block read views with a predicate, does point lookups by primary key,
// and prints what it did and how fast. The expected scan result is computed
// while generating, so the demo also checks itself.
#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "storage/storage.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

constexpr const char* kStatuses[] = {"new", "paid", "shipped", "closed", "returned"};
constexpr int64_t kMinAmount = 50000;  // 500.00, the scan's threshold

int RunDemo(const std::string& data_dir, int64_t rows) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) {
    fmt::print(stderr, "demo: cannot create {}: {}\n", data_dir, ec.message());
    return 1;
  }
  fmt::print("forktail demo: data directory {}\n", data_dir);
  fmt::print("  (tables live in memory for now: durability arrives with the WAL)\n\n");

  Catalog catalog;
  Table& orders = catalog.CreateTable({"orders",
                                       {{"o_id", Type::BigInt()},
                                        {"o_customer", Type::Integer(), true},
                                        {"o_status", Type::Varchar(10), true},
                                        {"o_amount", Type::Decimal(12, 2), true},
                                        {"o_date", Type::Date()},
                                        {"o_note", Type::Text()}},
                                       {ColumnId(0)}});
  fmt::print(
      "CREATE TABLE orders (o_id bigint PRIMARY KEY, o_customer integer, o_status "
      "varchar(10), o_amount numeric(12,2), o_date date, o_note text)\n");
  fmt::print("  {} rows per 2 MiB block\n", orders.layout().capacity());

  // Load.
  std::mt19937_64 rng(2026);
  int64_t expect_count = 0, expect_sum = 0;
  const int32_t first_day = 19723;  // 2024-01-01
  auto start = Clock::now();
  Row row(6);
  for (int64_t i = 0; i < rows; i++) {
    uint64_t r = rng();
    const char* status = kStatuses[r % 5];
    int64_t cents = static_cast<int64_t>((r >> 8) % 1000000);  // 0.00 .. 9999.99
    row[0] = Value::BigInt(i);
    row[1] = Value::Integer(static_cast<int32_t>((r >> 32) % 100000));
    row[2] = Value::String(Type::Varchar(10), status);
    row[3] = Value::Decimal(cents, 12, 2);
    row[4] = Value::Date(first_day + static_cast<int32_t>((r >> 40) % 730));
    row[5] = i % 10 == 0 ? Value::Text("gift wrap, deliver after 5pm") : Value::Null(Type::Text());
    orders.Insert(row);
    if (r % 5 == 2 && cents > kMinAmount) {
      expect_count++;
      expect_sum += cents;
    }
  }
  double load_s = Seconds(start);
  fmt::print("\nINSERT {} rows: {:.2f} s, {:.2f} M rows/s, {} blocks\n", rows, load_s,
             static_cast<double>(rows) / load_s / 1e6, orders.block_count());

  // Scan: SELECT count(*), sum(o_amount) FROM orders
  //       WHERE o_status = 'shipped' AND o_amount > 500.00
  start = Clock::now();
  int64_t count = 0, sum = 0;
  uint64_t bytes = 0;
  ColumnId status_col(2), amount_col(3);
  orders.ForEachBlock([&](const BlockRef&, const BlockReadView& v) {
    const int64_t* amount = v.stripe<int64_t>(amount_col);
    const StringRef* status = v.stripe<StringRef>(status_col);
    const uint64_t* deleted = v.delete_bitmap();
    for (uint32_t i = 0; i < v.row_count(); i++) {
      // Cheap numeric test first, the string only for survivors.
      if (amount[i] > kMinAmount && status[i].length == 7 && !TestBit(deleted, i) &&
          v.string(status_col, i) == "shipped") {
        count++;
        sum += amount[i];
      }
    }
    bytes += uint64_t{v.row_count()} * (sizeof(int64_t) + sizeof(StringRef));
  });
  double scan_s = Seconds(start);
  fmt::print(
      "\nSELECT count(*), sum(o_amount) FROM orders WHERE o_status = 'shipped' AND "
      "o_amount > 500.00\n");
  fmt::print("  count = {}, sum = {}   ({})\n", count, Value::Decimal(sum, 18, 2).ToString(),
             count == expect_count && sum == expect_sum ? "matches the generator" : "MISMATCH");
  fmt::print("  scan: {:.1f} ms, {:.0f} M rows/s, {:.2f} GB/s of column stripes\n", scan_s * 1e3,
             static_cast<double>(rows) / scan_s / 1e6, static_cast<double>(bytes) / scan_s / 1e9);

  // Point lookups.
  fmt::print("\nSELECT * FROM orders WHERE o_id = ...\n");
  for (int64_t key : {int64_t{0}, rows / 2, rows - 1}) {
    auto tid = orders.LookupKey({Value::BigInt(key)});
    if (!tid) continue;
    Row found = *orders.Read(*tid);
    fmt::print("  {} at {}: customer {}, {}, {}, {}\n", key, tid->ToString(), found[1].ToString(),
               found[2].ToString(), found[3].ToString(), found[4].ToString());
  }
  const int lookups = 200000;
  int hits = 0;
  start = Clock::now();
  for (int i = 0; i < lookups; i++) {
    hits += orders.LookupKey({Value::BigInt(static_cast<int64_t>(rng() % (rows + rows / 10)))})
                .has_value();
  }
  double lookup_s = Seconds(start);
  fmt::print("  {} random lookups ({} hits): {:.2f} M lookups/s\n", lookups, hits,
             lookups / lookup_s / 1e6);

  // Statistics.
  start = Clock::now();
  orders.RefreshStatistics();
  const TableStatistics& stats = orders.statistics();
  fmt::print("\nANALYZE orders: {:.2f} s: {} rows, ~{:.0f} distinct customers, o_date {} .. {}\n",
             Seconds(start), stats.row_count(), stats.column(ColumnId(1)).DistinctEstimate(),
             stats.column(ColumnId(4)).min->ToString(), stats.column(ColumnId(4)).max->ToString());
  return count == expect_count && sum == expect_sum ? 0 : 1;
}

}  // namespace

void RegisterDemoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "create a database, load a generated table, scan it");
  static std::string data_dir = "./data";
  static int64_t rows = 4000000;
  cmd->add_option("--data", data_dir, "data directory")->capture_default_str();
  cmd->add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([] { ExitCode() = RunDemo(data_dir, rows); });
}

}  // namespace forktail::tools
