#include "olap/session/block/optimistic_block.h"

#include <atomic>
#include <exception>
#include <optional>
#include <string>

#include "olap/common/key_encoder.h"
#include "snapshot/snapshot_query.h"

namespace forktail {
namespace {

struct Counters {
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> serialization_failures{0};
  std::atomic<uint64_t> steps{0};
  std::atomic<uint64_t> reruns{0};
};

Counters& Totals() {
  static Counters counters;
  return counters;
}

// The running hash combined with the next word (boost's hash_combine step,
// then a 64-bit finalizer).
uint64_t Mix(uint64_t h, uint64_t v) {
  return KeyEncoder::Mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

uint64_t HashText(std::string_view s) { return std::hash<std::string_view>{}(s); }

DbError SerializationFailure(size_t statement, const std::string& what) {
  Totals().serialization_failures.fetch_add(1, std::memory_order_relaxed);
  return DbError(sqlstate::kSerializationFailure,
                 "could not serialize access due to a concurrent update: statement " +
                     std::to_string(statement + 1) + " of the transaction " + what +
                     " (the transaction might succeed if retried)");
}

}  // namespace

uint64_t ResultDigest(const StatementResult& result, bool ordered) {
  uint64_t h = HashText(result.command_tag);
  for (const ResultColumn& c : result.columns) {
    h = Mix(h, HashText(c.name));
    h = Mix(h, HashText(c.type.ToString()));
  }
  h = Mix(h, result.rows.size());
  // Unordered: the rows' own digests summed, which no permutation changes.
  uint64_t multiset = 0;
  for (const Row& row : result.rows) {
    uint64_t r = ordered ? h : 0x726f77ULL;
    for (const Value& v : row) {
      // Value::Hash hashes a fractional DECIMAL through a double, which cannot
      // tell 18-digit values apart: digest the text the client sees instead.
      if (!v.is_null() && v.type().id == TypeId::kDecimal) {
        r = Mix(r, HashText(v.ToString()));
      } else {
        r = Mix(r, v.is_null() ? 0x6e756c6cULL : v.Hash());
      }
    }
    if (ordered) {
      h = r;
    } else {
      multiset += r;
    }
  }
  return ordered ? h : Mix(h, multiset);
}

OptimisticBlockStats OptimisticBlock::GlobalStats() {
  OptimisticBlockStats s;
  s.commits = Totals().commits.load();
  s.serialization_failures = Totals().serialization_failures.load();
  s.steps = Totals().steps.load();
  s.reruns = Totals().reruns.load();
  return s;
}

OptimisticBlock::OptimisticBlock(Database& db, std::function<void()> on_run)
    : db_(db), on_run_(std::move(on_run)) {}

void OptimisticBlock::Rerun(Transaction& txn, bool all) const {
  for (size_t i = 0; i < entries_.size(); i++) {
    const Entry& e = entries_[i];
    if (!all && !e.writes) continue;
    Totals().reruns.fetch_add(1, std::memory_order_relaxed);
    StatementResult again;
    try {
      again = e.statement(txn);
    } catch (const DbError& error) {
      // A cancel (or shutdown) stops the run; it says nothing about conflicts.
      if (std::string_view(error.sqlstate()) == sqlstate::kQueryCanceled ||
          std::string_view(error.sqlstate()) == sqlstate::kAdminShutdown) {
        throw;
      }
      throw SerializationFailure(i, "now fails: " + std::string(error.what()));
    }
    if (ResultDigest(again, e.ordered) != e.digest) {
      throw SerializationFailure(i, "now returns a different result than it did");
    }
  }
}

StatementResult OptimisticBlock::Run(BlockStatement statement, bool writes, bool ordered) {
  Totals().steps.fetch_add(1, std::memory_order_relaxed);
  StatementResult result;
  try {
    Inspect([&](Transaction& txn) { result = statement(txn); });
  } catch (const DbError& error) {
    ThrowIfStale(error);
    throw;
  }
  entries_.push_back({std::move(statement), writes, ordered, ResultDigest(result, ordered)});
  has_writes_ = has_writes_ || writes;
  return result;
}

void OptimisticBlock::ThrowIfStale(const DbError& error) const {
  const std::string_view state = error.sqlstate();
  if (entries_.empty() || state == sqlstate::kSerializationFailure ||
      state == sqlstate::kQueryCanceled || state == sqlstate::kAdminShutdown) {
    return;
  }
  std::optional<DbError> conflict;
  try {
    RunTransaction(db_, [&](Transaction& txn) {
      txn.DiscardOnReturn();
      if (on_run_) on_run_();
      try {
        Rerun(txn, true);
      } catch (const DbError& e) {
        if (std::string_view(e.sqlstate()) == sqlstate::kSerializationFailure) conflict = e;
      }
    });
  } catch (...) {
    return;  // the check could not run: the step's own error stands
  }
  if (conflict) throw *conflict;
}

TxnResult RunTransaction(Database& db, const std::function<void(Transaction&)>& work) {
  std::exception_ptr error;
  TxnResult r = db.Run([&](Transaction& txn) {
    try {
      work(txn);
    } catch (...) {
      error = std::current_exception();
      throw;
    }
  });
  if (error) std::rethrow_exception(error);
  return r;
}

void OptimisticBlock::Inspect(const std::function<void(Transaction&)>& fn) {
  TxnResult r = RunTransaction(db_, [&](Transaction& txn) {
    txn.DiscardOnReturn();
    if (on_run_) on_run_();
    if (has_writes_) Rerun(txn, false);
    fn(txn);
  });
  if (!r.ok) throw DbError(InternSqlstate(r.sqlstate), r.message);
}

TxnResult OptimisticBlock::Commit() {
  if (entries_.empty()) return TxnResult{};
  TxnResult r = db_.Run([&](Transaction& txn) {
    if (on_run_) on_run_();
    Rerun(txn, true);
  });
  if (r.ok) Totals().commits.fetch_add(1, std::memory_order_relaxed);
  return r;
}

}  // namespace forktail
