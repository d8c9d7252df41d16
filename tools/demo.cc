// `forktail demo`: the embedded database end to end. Opens (and recovers) the
// database in the data directory; if an earlier run left the demo table,
// verifies every recovered row against the generator and drops it. Then
// creates the table, loads generated rows in durable transactions (several in
// flight, so commits share log syncs), scans two columns through the block read
// views with a predicate, does point lookups by primary key, runs ANALYZE,
// runs a typed stored procedure (and one call that aborts on purpose), takes a
// checkpoint, closes, reopens and verifies that recovery found every row.
// Every row is a pure function of its key, so the demo checks itself.
#include <chrono>
#include <deque>
#include <filesystem>
#include <future>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "forktail/database.h"
#include "recovery/recovery.h"
#include "recovery/replay_driver.h"
#include "storage/storage.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

constexpr const char* kTable = "orders";
constexpr const char* kStatuses[] = {"new", "paid", "shipped", "closed", "returned"};
constexpr int64_t kMinAmount = 50000;  // 500.00, the scan's threshold
constexpr int32_t kFirstDay = 19723;   // 2024-01-01
constexpr int64_t kBatchRows = 10000;  // rows per load transaction
constexpr size_t kInFlight = 8;        // load transactions queued at once

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// What the generator says row `id` holds (before any payment).
struct Order {
  int32_t customer;
  const char* status;
  int64_t cents;
  int32_t date;
  bool note;
};

Order Generate(int64_t id) {
  uint64_t r = Mix(static_cast<uint64_t>(id) ^ 2026);
  return {static_cast<int32_t>((r >> 32) % 100000), kStatuses[r % 5],
          static_cast<int64_t>((r >> 8) % 1000000),
          kFirstDay + static_cast<int32_t>((r >> 40) % 730), id % 10 == 0};
}

Row MakeRow(int64_t id) {
  Order o = Generate(id);
  Row row(6);
  row[0] = Value::BigInt(id);
  row[1] = Value::Integer(o.customer);
  row[2] = Value::String(Type::Varchar(10), o.status);
  row[3] = Value::Decimal(o.cents, 12, 2);
  row[4] = Value::Date(o.date);
  row[5] = o.note ? Value::Text("gift wrap, deliver after 5pm") : Value::Null(Type::Text());
  return row;
}

// The payments the demo makes in a table of `rows` rows: (o_id, cents).
// pay() sets o_status = 'paid' and adds the amount.
std::vector<std::pair<int64_t, int64_t>> Payments(int64_t rows) {
  std::vector<std::pair<int64_t, int64_t>> p;
  for (int64_t k = 1; k <= 5 && k < rows; k++) p.emplace_back(rows * k / 6, 1000 * k);
  return p;
}

// The expected table: every row, with the payments applied.
struct Expected {
  int64_t rows = 0;
  int64_t total = 0;  // sum(o_amount)
  int64_t count = 0;  // the scan's predicate
  int64_t sum = 0;
  std::vector<std::pair<int64_t, int64_t>> paid;

  Order At(int64_t id) const {
    Order o = Generate(id);
    for (auto [pid, cents] : paid) {
      if (pid == id) {
        o.status = "paid";
        o.cents += cents;
      }
    }
    return o;
  }
};

Expected Expect(int64_t rows, bool with_payments) {
  Expected e;
  e.rows = rows;
  if (with_payments) e.paid = Payments(rows);
  for (int64_t i = 0; i < rows; i++) {
    Order o = Generate(i);
    e.total += o.cents;
    if (std::string_view(o.status) == "shipped" && o.cents > kMinAmount) {
      e.count++;
      e.sum += o.cents;
    }
  }
  for (auto [id, cents] : e.paid) {  // payments make a row 'paid', never 'shipped'
    Order o = Generate(id);
    e.total += cents;
    if (std::string_view(o.status) == "shipped" && o.cents > kMinAmount) {
      e.count--;
      e.sum -= o.cents;
    }
  }
  return e;
}

std::string Money(int64_t cents) { return Value::Decimal(cents, 18, 2).ToString(); }

bool TableExists(Database& db) {
  TxnResult r = db.Run([](Transaction& txn) { txn.GetTable(kTable); });
  return r.ok;
}

// Scans every row through Transaction::Scan and compares it with the
// generator (payments included when `with_payments`). Prints one line.
bool VerifyAll(Database& db, const char* what, bool with_payments) {
  auto start = Clock::now();
  int64_t rows = 0, total = 0, bad = 0, max_id = -1;
  std::string first_bad;
  TxnResult r = db.Run([&](Transaction& txn) {
    txn.Scan(kTable, [&](TupleId, const Row& row) {
      rows++;
      total += row[3].GetInt();
      max_id = std::max(max_id, row[0].GetInt());
      return true;
    });
  });
  if (!r.ok) {
    fmt::print("  {}: scan failed: {} {}\n", what, r.sqlstate, r.message);
    return false;
  }
  // The rows are a function of the key 0..rows-1; check each one.
  Expected e = Expect(rows, with_payments);
  r = db.Run([&](Transaction& txn) {
    txn.Scan(kTable, [&](TupleId, const Row& row) {
      int64_t id = row[0].GetInt();
      Order o = e.At(id);
      bool ok = id >= 0 && id < rows && row[1].GetInt() == o.customer &&
                row[2].GetString() == o.status && row[3].GetInt() == o.cents &&
                row[4].GetInt() == o.date && row[5].is_null() != o.note;
      if (!ok && bad++ == 0) first_bad = fmt::format("o_id {}", id);
      return true;
    });
  });
  bool ok = r.ok && bad == 0 && total == e.total && max_id == rows - 1;
  fmt::print("  {}: {} rows, sum(o_amount) = {} (expected {}), {} rows differ{}: {} ({:.2f} s)\n",
             what, rows, Money(total), Money(e.total), bad,
             first_bad.empty() ? "" : " (first " + first_bad + ")",
             ok ? "every row matches the generator" : "MISMATCH", Seconds(start));
  return ok;
}

void PrintRecovery(const Database& db) {
  const redo::RecoveryReport& rep = db.recovery_report();
  if (rep.has_checkpoint) {
    fmt::print("  recovery: checkpoint #{} (LSN {}, {} blocks loaded in {:.2f} s)\n",
               rep.checkpoint.sequence, rep.checkpoint.lsn, rep.blocks_loaded,
               rep.checkpoint_seconds);
  } else {
    fmt::print("  recovery: no checkpoint\n");
  }
  fmt::print(
      "  recovery: replayed {} log records ({:.1f} MB, {} committed transactions, {} dropped) in "
      "{:.2f} s{}\n",
      rep.replay.records, static_cast<double>(rep.replay.bytes) / 1e6, rep.replay.committed_txns,
      rep.replay.dropped_txns, rep.replay_seconds, rep.tail_cut ? ", torn tail cut" : "");
}

int Fail(const std::string& what, const TxnResult& r) {
  fmt::print(stderr, "demo: {} failed: {} {}\n", what, r.sqlstate, r.message);
  return 1;
}

int RunDemo(const std::string& data_dir, int64_t rows) {
  bool ok = true;
  fmt::print("forktail demo: embedded database in {}\n\n", data_dir);

  // 1. Open and recover.
  auto start = Clock::now();
  std::unique_ptr<Database> db = Database::Open(data_dir);
  fmt::print("Database::Open: {:.2f} s\n", Seconds(start));
  PrintRecovery(*db);
  if (TableExists(*db)) {
    fmt::print("  found table {} from an earlier run\n", kTable);
    ok &= VerifyAll(*db, "recovered", true);
    start = Clock::now();
    TxnResult r = db->Run([](Transaction& txn) { txn.DropTable(kTable); });
    if (!r.ok) return Fail("DROP TABLE", r);
    fmt::print("DROP TABLE {}: {:.2f} s\n", kTable, Seconds(start));
  } else {
    fmt::print("  no table {} yet\n", kTable);
  }

  // 2. Create and load.
  TxnResult r = db->Run([](Transaction& txn) {
    txn.CreateTable({kTable,
                     {{"o_id", Type::BigInt()},
                      {"o_customer", Type::Integer(), true},
                      {"o_status", Type::Varchar(10), true},
                      {"o_amount", Type::Decimal(12, 2), true},
                      {"o_date", Type::Date()},
                      {"o_note", Type::Text()}},
                     {ColumnId(0)}});
  });
  if (!r.ok) return Fail("CREATE TABLE", r);
  fmt::print(
      "\nCREATE TABLE orders (o_id bigint PRIMARY KEY, o_customer integer, o_status "
      "varchar(10), o_amount numeric(12,2), o_date date, o_note text)\n");

  auto log_before = db->log_stats();
  start = Clock::now();
  std::deque<std::future<TxnResult>> pending;
  int64_t commits = 0;
  for (int64_t begin = 0; begin < rows || !pending.empty();) {
    if (begin < rows && pending.size() < kInFlight) {
      int64_t end = std::min(rows, begin + kBatchRows);
      pending.push_back(db->RunAsync([begin, end](Transaction& txn) {
        for (int64_t i = begin; i < end; i++) txn.Insert(kTable, MakeRow(i));
      }));
      begin = end;
      continue;
    }
    TxnResult done = pending.front().get();
    pending.pop_front();
    if (!done.ok) return Fail("INSERT batch", done);
    commits++;
  }
  double load_s = Seconds(start);
  auto log_after = db->log_stats();
  fmt::print(
      "INSERT {} rows in {} transactions of {} rows (synchronous commit, {} queued at once): "
      "{:.2f} s, {:.2f} M rows/s, {:.0f} commits/s\n",
      rows, commits, kBatchRows, kInFlight, load_s, static_cast<double>(rows) / load_s / 1e6,
      static_cast<double>(commits) / load_s);
  fmt::print("  log: {:.1f} MB written, {} syncs for {} commits\n",
             static_cast<double>(log_after.bytes - log_before.bytes) / 1e6,
             log_after.syncs - log_before.syncs, commits);

  // 3. Analytics, read-only transactions on the transaction thread.
  Expected e = Expect(rows, false);
  int64_t count = 0, sum = 0;
  uint64_t bytes = 0, blocks = 0;
  start = Clock::now();
  r = db->Run([&](Transaction& txn) {
    // SELECT count(*), sum(o_amount) FROM orders
    // WHERE o_status = 'shipped' AND o_amount > 500.00
    ColumnId status_col(2), amount_col(3);
    txn.GetTable(kTable).ForEachBlock([&](const BlockRef&, const BlockReadView& v) {
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
      blocks++;
    });
  });
  double scan_s = Seconds(start);
  if (!r.ok) return Fail("scan", r);
  bool scan_ok = count == e.count && sum == e.sum;
  ok &= scan_ok;
  fmt::print(
      "\nSELECT count(*), sum(o_amount) FROM orders WHERE o_status = 'shipped' AND "
      "o_amount > 500.00\n");
  fmt::print("  count = {}, sum = {}   ({})\n", count, Money(sum),
             scan_ok ? "matches the generator" : "MISMATCH");
  fmt::print(
      "  scan of {} blocks (read-only transaction): {:.1f} ms, {:.0f} M rows/s, {:.2f} GB/s of "
      "column stripes\n",
      blocks, scan_s * 1e3, static_cast<double>(rows) / scan_s / 1e6,
      static_cast<double>(bytes) / scan_s / 1e9);

  fmt::print("\nSELECT * FROM orders WHERE o_id = ...\n");
  r = db->Run([&](Transaction& txn) {
    for (int64_t key : {int64_t{0}, rows / 2, rows - 1}) {
      auto tid = txn.Find(kTable, {Value::BigInt(key)});
      if (!tid) continue;
      Row found = *txn.Read(kTable, *tid);
      fmt::print("  {} at {}: customer {}, {}, {}, {}\n", key, tid->ToString(), found[1].ToString(),
                 found[2].ToString(), found[3].ToString(), found[4].ToString());
    }
  });
  if (!r.ok) return Fail("lookup", r);
  const int lookups = 200000;
  int hits = 0;
  start = Clock::now();
  r = db->Run([&](Transaction& txn) {
    uint64_t x = 7;
    for (int i = 0; i < lookups; i++) {
      x = Mix(x);
      hits += txn.Find(kTable, {Value::BigInt(static_cast<int64_t>(
                                   x % static_cast<uint64_t>(rows + rows / 10)))})
                  .has_value();
    }
  });
  double lookup_s = Seconds(start);
  if (!r.ok) return Fail("lookups", r);
  fmt::print("  {} random lookups in one read-only transaction ({} hits): {:.2f} M lookups/s\n",
             lookups, hits, lookups / lookup_s / 1e6);

  start = Clock::now();
  r = db->Run([&](Transaction& txn) {
    // The API has no ANALYZE yet. Statistics are not logged data, and this
    // body runs on the transaction thread, the only one touching the table.
    Table& t = const_cast<Table&>(txn.GetTable(kTable));
    t.RefreshStatistics();
    const TableStatistics& stats = t.statistics();
    fmt::print("\nANALYZE orders: {:.2f} s: {} rows, ~{:.0f} distinct customers, o_date {} .. {}\n",
               Seconds(start), stats.row_count(), stats.column(ColumnId(1)).DistinctEstimate(),
               stats.column(ColumnId(4)).min->ToString(),
               stats.column(ColumnId(4)).max->ToString());
  });
  if (!r.ok) return Fail("ANALYZE", r);

  // 4. A typed stored procedure.
  db->RegisterProcedure("pay", [](Transaction& txn, int64_t o_id, int64_t cents) {
    auto row = txn.Get(kTable, {Value::BigInt(o_id)});
    if (!row) txn.Abort(fmt::format("no order {}", o_id));
    txn.UpdateByKey(kTable, {Value::BigInt(o_id)},
                    {{"o_status", Value::String(Type::Varchar(10), "paid")},
                     {"o_amount", Value::Decimal((*row)[3].GetInt() + cents, 12, 2)}});
    // Validated after the update on purpose: an abort undoes the update.
    if (cents <= 0) txn.Abort(fmt::format("payment must be positive, got {}", Money(cents)));
  });
  fmt::print(
      "\nstored procedure pay(o_id bigint, cents bigint): o_status = 'paid', o_amount += cents\n");
  start = Clock::now();
  auto payments = Payments(rows);
  // The last two payments come after the checkpoint, so that the reopen
  // below replays them from the log.
  const size_t before_checkpoint = payments.size() > 2 ? payments.size() - 2 : payments.size();
  for (size_t k = 0; k < before_checkpoint; k++) {
    r = db->Execute("pay", {Value::BigInt(payments[k].first), Value::BigInt(payments[k].second)});
    if (!r.ok) return Fail("pay", r);
  }
  double pay_s = Seconds(start);
  fmt::print("  {} payments committed durably: {:.2f} ms each\n", before_checkpoint,
             pay_s * 1e3 / static_cast<double>(std::max<size_t>(before_checkpoint, 1)));
  auto show = [&](int64_t id) {
    TxnResult g = db->Run([id](Transaction& txn) {
      if (auto row = txn.Get(kTable, {Value::BigInt(id)})) txn.Emit(*row);
    });
    return g.ok && !g.rows.empty()
               ? fmt::format("{}, {}", g.rows[0][2].ToString(), g.rows[0][3].ToString())
               : std::string("(missing)");
  };
  int64_t victim = payments.empty() ? 0 : payments[0].first;
  std::string before = show(victim);
  r = db->Execute("pay", {Value::BigInt(victim), Value::BigInt(-500)});
  std::string after = show(victim);
  fmt::print("  pay({}, -500) -> {}: ERROR {}: {}\n", victim,
             r.ok ? "COMMITTED (unexpected)" : "aborted", r.sqlstate, r.message);
  fmt::print("  order {} before: {}; after: {} ({})\n", victim, before, after,
             !r.ok && before == after ? "unchanged" : "CHANGED");
  ok &= !r.ok && before == after;
  r = db->Execute("pay", {Value::BigInt(victim)});
  fmt::print("  pay({}) -> ERROR {}: {}\n", victim, r.sqlstate, r.message);
  ok &= !r.ok;

  // 5. Checkpoint, close, reopen.
  CheckpointResult ck = db->Checkpoint();
  fmt::print(
      "\nCHECKPOINT #{}: {:.2f} s, {} of {} blocks written, {} old images deleted, {} log segments "
      "removed\n",
      ck.sequence, ck.seconds, ck.blocks_written, ck.blocks_total, ck.images_deleted,
      ck.segments_removed);
  for (size_t k = before_checkpoint; k < payments.size(); k++) {
    r = db->Execute("pay", {Value::BigInt(payments[k].first), Value::BigInt(payments[k].second)});
    if (!r.ok) return Fail("pay", r);
  }
  fmt::print("{} more payments after the checkpoint (only in the log)\n",
             payments.size() - before_checkpoint);
  db->Close();
  db.reset();
  fmt::print("closed the database\n\n");
  start = Clock::now();
  db = Database::Open(data_dir);
  fmt::print("Database::Open again: {:.2f} s\n", Seconds(start));
  PrintRecovery(*db);
  ok &= VerifyAll(*db, "after reopen", true);
  db->Close();

  fmt::print("\n{}\n",
             ok ? "demo OK: every check passed; run it again to start from the recovered table"
                : "demo FAILED: see MISMATCH above");
  return ok ? 0 : 1;
}

}  // namespace

void RegisterDemoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "open a durable database, load, scan, update, recover");
  static std::string data_dir = "./data";
  static int64_t rows = 2000000;
  cmd->add_option("--data", data_dir, "data directory")->capture_default_str();
  cmd->add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([] {
    try {
      ExitCode() = RunDemo(data_dir, rows);
    } catch (const DbError& e) {
      fmt::print(stderr, "demo: ERROR {}: {}\n", e.sqlstate(), e.what());
      ExitCode() = 1;
    }
  });
}

}  // namespace forktail::tools
