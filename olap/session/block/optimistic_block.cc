#include "olap/session/block/optimistic_block.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "olap/common/key_encoder.h"
#include "snapshot/snapshot_query.h"
#include "storage/table/catalog.h"

namespace forktail {
namespace {

struct Counters {
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> serialization_failures{0};
  std::atomic<uint64_t> steps{0};
  std::atomic<uint64_t> reruns{0};
  std::atomic<uint64_t> lock_waits{0};
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

// A step's forecast left out a write its statement may see: it runs again
// with every earlier write.
struct ForecastMissed : std::exception {
  const char* what() const noexcept override { return "step forecast missed a write"; }
};

// What a client learned from a statement's error.
uint64_t ErrorDigest(const DbError& error) {
  return Mix(HashText(error.sqlstate()), HashText(error.what()));
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
  s.lock_waits = Totals().lock_waits.load();
  return s;
}

OptimisticBlock::OptimisticBlock(Database& db, RowLockTable& locks, std::function<void()> on_run)
    : db_(db), locks_(locks), on_run_(std::move(on_run)) {}

void OptimisticBlock::Rerun(Transaction& txn, bool all) const {
  std::vector<size_t> run;
  for (size_t i = 0; i < entries_.size(); i++) {
    const Entry& e = entries_[i];
    // A step needs what the block wrote and still holds; COMMIT everything.
    if (all || (e.writes && !e.rolled_back)) run.push_back(i);
  }
  RerunMarked(txn, run);
}

void OptimisticBlock::RerunMarked(Transaction& txn, const std::vector<size_t>& run) const {
  using Kind = Entry::Kind;
  if (markers_ == 0) {  // no savepoint to replay: only the entries to run
    for (size_t i : run) RerunEntry(txn, i);
    return;
  }
  std::vector<Transaction::Savepoint> marks;  // by level
  auto next = run.begin();
  for (size_t i = 0; i < entries_.size(); i++) {
    const Entry& e = entries_[i];
    switch (e.kind) {
      case Kind::kSavepoint:
        marks.resize(e.level);
        marks.push_back(txn.SetSavepoint());
        continue;
      case Kind::kRollbackTo:
        marks.resize(e.level + 1);
        txn.RollbackToSavepoint(marks.back());
        continue;
      case Kind::kRelease:
        marks.resize(e.level);
        continue;
      case Kind::kStatement:
      case Kind::kFailed:
        break;
    }
    while (next != run.end() && *next < i) ++next;
    if (next == run.end() || *next != i) continue;
    RerunEntry(txn, i);
  }
}

void OptimisticBlock::RerunEntry(Transaction& txn, size_t i) const {
  using Kind = Entry::Kind;
  const Entry& e = entries_[i];
  Totals().reruns.fetch_add(1, std::memory_order_relaxed);
  StatementResult again;
  // A failed statement is undone after it fails again (it may have written first).
  std::optional<Transaction::Savepoint> before;
  if (e.kind == Kind::kFailed) before = txn.SetSavepoint();
  try {
    again = e.statement(txn);
  } catch (const DbError& error) {
    // A cancel (or shutdown) stops the run; it says nothing about conflicts.
    if (std::string_view(error.sqlstate()) == sqlstate::kQueryCanceled ||
        std::string_view(error.sqlstate()) == sqlstate::kAdminShutdown) {
      throw;
    }
    if (e.kind == Kind::kFailed && ErrorDigest(error) == e.digest) {
      txn.RollbackToSavepoint(*before);
      return;
    }
    throw SerializationFailure(i, "now fails: " + std::string(error.what()));
  }
  if (e.kind == Kind::kFailed) {
    throw SerializationFailure(i, "now succeeds where it failed");
  }
  if (ResultDigest(again, e.ordered) != e.digest) {
    throw SerializationFailure(i, "now returns a different result than it did");
  }
}

void OptimisticBlock::AddMarker(Entry::Kind kind, size_t level) {
  Entry marker;
  marker.kind = kind;
  marker.level = level;
  marker.known = true;
  entries_.push_back(std::move(marker));
  ++markers_;
}

size_t OptimisticBlock::FindSavepoint(const std::string& name) const {
  for (size_t level = savepoints_.size(); level-- > 0;) {
    if (savepoints_[level].first == name) return level;
  }
  throw DbError(sqlstate::kInvalidSavepointSpecification,
                "savepoint \"" + name + "\" does not exist");
}

void OptimisticBlock::Savepoint(const std::string& name) {
  savepoints_.emplace_back(name, entries_.size());
  AddMarker(Entry::Kind::kSavepoint, savepoints_.size() - 1);
}

size_t OptimisticBlock::RollbackTo(const std::string& name) {
  const size_t level = FindSavepoint(name);
  for (size_t i = savepoints_[level].second + 1; i < entries_.size(); i++) {
    entries_[i].rolled_back = true;
  }
  savepoints_.resize(level + 1);
  AddMarker(Entry::Kind::kRollbackTo, level);
  return level;
}

size_t OptimisticBlock::Release(const std::string& name) {
  const size_t level = FindSavepoint(name);
  savepoints_.resize(level);
  AddMarker(Entry::Kind::kRelease, level);
  return level;
}

StatementResult OptimisticBlock::Run(BlockStatement statement, bool writes, bool ordered,
                                     const RowLockRequest* lock, const StepFootprint* tables) {
  if (!lock) return Step(std::move(statement), writes, ordered, tables);
  RowLockTable& table = locks_.table();
  for (;;) {
    if (lock->skipped) {
      lock->skipped->decided = false;
      lock->skipped->keys.clear();
      lock->skipped->held_elsewhere = [&table, owner = locks_.id(),
                                       mode = lock->mode](const std::string& key) {
        return !table.Available(owner, key, mode);
      };
    }
    const uint64_t epoch = table.Epoch();
    StatementResult result = Step(statement, writes, ordered, tables);
    auto forget_step = [&] {
      Unrecord();
      has_writes_ =
          std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.writes; });
    };
    bool waited;
    try {
      waited =
          table.Acquire(locks_.id(), *lock->keys, lock->mode, epoch, lock->policy, lock->relation);
    } catch (...) {  // NOWAIT, lock_timeout: the client never sees this result
      forget_step();
      throw;
    }
    if (!waited) return result;
    // The rows may have changed since the step read them: forget it and
    // read them again, now that no other locker can change them.
    Totals().lock_waits.fetch_add(1, std::memory_order_relaxed);
    forget_step();
  }
}

StatementResult OptimisticBlock::Step(BlockStatement statement, bool writes, bool ordered,
                                      const StepFootprint* tables) {
  Totals().steps.fetch_add(1, std::memory_order_relaxed);
  StatementResult result;
  std::vector<TableId> looked_up;
  std::vector<TableId> changed;
  bool forecast = tables != nullptr && has_writes_;
  for (;;) {
    try {
      TxnResult r = RunTransaction(db_, [&](Transaction& txn) {
        txn.DiscardOnReturn();
        if (on_run_) on_run_();
        std::vector<size_t> rerun;  // ascending
        if (forecast) {
          rerun = WritesSeenBy(*tables);
          RerunMarked(txn, rerun);
        } else if (has_writes_) {
          Rerun(txn, false);
        }
        looked_up.clear();
        const size_t mark = txn.change_mark();
        {
          TableLookupRecorder recorder(&looked_up);
          result = statement(txn);
        }
        changed = txn.TablesChangedSince(mark);
        if (!forecast) return;
        // A table it looked up that a write left out changed (beyond the
        // rows its forecast names): the forecast may miss that write.
        StepFootprint actual = *tables;
        for (TableId t : looked_up) {
          if (!actual.RowsOnly(t)) actual.tables.push_back(t);
        }
        std::vector<size_t> reaching;
        writes_index_.Reaching(actual, &reaching);
        for (size_t i : reaching) {
          if (!entries_[i].rolled_back && !std::binary_search(rerun.begin(), rerun.end(), i)) {
            throw ForecastMissed();
          }
        }
      });
      if (!r.ok) throw DbError(InternSqlstate(r.sqlstate), r.message);
    } catch (const ForecastMissed&) {
      forecast = false;
      continue;
    } catch (const DbError& error) {
      const std::string_view state = error.sqlstate();
      if (forecast && state != sqlstate::kSerializationFailure &&
          state != sqlstate::kQueryCanceled && state != sqlstate::kAdminShutdown) {
        forecast = false;  // an error is final: it must be the full run's
        continue;
      }
      ThrowIfStale(error);
      RecordFailure(statement, error);
      throw;
    }
    break;
  }
  std::sort(looked_up.begin(), looked_up.end());
  looked_up.erase(std::unique(looked_up.begin(), looked_up.end()), looked_up.end());
  Entry entry;
  entry.statement = std::move(statement);
  entry.writes = writes;
  entry.ordered = ordered;
  entry.digest = ResultDigest(result, ordered);
  entry.known = tables != nullptr;
  entry.looked_up = std::move(looked_up);
  entry.changed = std::move(changed);
  entry.forecast = tables ? *tables : StepFootprint{};
  Record(std::move(entry));
  has_writes_ = has_writes_ || writes;
  return result;
}

bool StepFootprint::RowsOnly(TableId table) const {
  if (std::find(tables.begin(), tables.end(), table) != tables.end()) return false;
  auto of_table = [&](const auto& r) { return r.first == table; };
  return std::any_of(rows.begin(), rows.end(), of_table) ||
         std::any_of(prefixes.begin(), prefixes.end(), of_table);
}

bool StepFootprint::Touches(TableId table) const {
  return std::find(tables.begin(), tables.end(), table) != tables.end() || RowsOnly(table);
}

bool StepFootprint::TouchesRow(TableId table, const std::string& key) const {
  return std::find(tables.begin(), tables.end(), table) != tables.end() ||
         std::find(rows.begin(), rows.end(), std::make_pair(table, key)) != rows.end() ||
         std::any_of(prefixes.begin(), prefixes.end(), [&](const auto& p) {
           return p.first == table && key.compare(0, p.second.size(), p.second) == 0;
         });
}

void OptimisticBlock::Record(Entry entry) {
  const size_t i = entries_.size();
  if (entry.kind == Entry::Kind::kStatement && entry.writes) {
    if (entry.known) {
      writes_index_.Add(i, entry.changed, entry.forecast);
    } else {
      unknown_writes_.push_back(i);
    }
  }
  entries_.push_back(std::move(entry));
}

void OptimisticBlock::Unrecord() {
  const size_t i = entries_.size() - 1;
  writes_index_.RemoveNewest(i);
  if (!unknown_writes_.empty() && unknown_writes_.back() == i) unknown_writes_.pop_back();
  entries_.pop_back();
}

std::vector<size_t> OptimisticBlock::WritesSeenBy(const StepFootprint& footprint) const {
  std::vector<size_t> run;
  // The newest write whose tables were not known: it, and every write
  // before it, runs whatever it touched.
  size_t floor = 0;
  for (size_t k = unknown_writes_.size(); k-- > 0;) {
    const size_t u = unknown_writes_[k];
    if (entries_[u].rolled_back) continue;
    for (size_t j = 0; j <= u; j++) {
      if (entries_[j].writes && !entries_[j].rolled_back) run.push_back(j);
    }
    floor = u + 1;
    break;
  }
  // The writes that reach the footprint, and, since what a write read
  // decides what it wrote, the earlier writes that reach what those read:
  // a closure over the index, in which a write reached through what entry
  // j read counts only if it came before j (as in a walk from the newest
  // entry down). `reach` keeps, per table and per row, the newest entry
  // whose reads reached it, so each is looked up again only when a newer
  // reader widens the range.
  std::vector<size_t> pending;  // (candidates below the limit their reader set)
  std::vector<size_t> found;
  auto expand = [&](auto& reach, const auto& key, size_t limit, auto lookup) {
    auto [it, fresh] = reach.try_emplace(key, limit);
    if (!fresh && it->second >= limit) return;
    it->second = limit;
    found.clear();
    lookup(&found);
    for (size_t i : found) {
      if (i < limit) pending.push_back(i);
    }
  };
  std::unordered_map<uint32_t, size_t> reach_tables;
  std::map<std::pair<TableId, std::string>, size_t> reach_rows;
  const size_t all = entries_.size();
  for (TableId t : footprint.tables) {
    expand(reach_tables, t.value(), all,
           [&](std::vector<size_t>* out) { writes_index_.ReachingTable(t, out); });
  }
  for (const auto& row : footprint.rows) {
    expand(reach_rows, row, all, [&](std::vector<size_t>* out) {
      writes_index_.ReachingRow(row.first, row.second, out);
    });
  }
  for (const auto& prefix : footprint.prefixes) {  // a read's; writes name none
    found.clear();
    writes_index_.ReachingPrefix(prefix.first, prefix.second, &found);
    pending.insert(pending.end(), found.begin(), found.end());
  }
  std::unordered_set<size_t> taken;
  while (!pending.empty()) {
    const size_t i = pending.back();
    pending.pop_back();
    const Entry& e = entries_[i];
    if (i < floor || e.rolled_back || !taken.insert(i).second) continue;
    run.push_back(i);
    for (TableId t : e.looked_up) {
      if (e.forecast.RowsOnly(t)) continue;
      expand(reach_tables, t.value(), i,
             [&](std::vector<size_t>* out) { writes_index_.ReachingTable(t, out); });
    }
    for (const auto& row : e.forecast.rows) {
      expand(reach_rows, row, i, [&](std::vector<size_t>* out) {
        writes_index_.ReachingRow(row.first, row.second, out);
      });
    }
  }
  std::sort(run.begin(), run.end());
  return run;
}

void OptimisticBlock::RecordFailure(const BlockStatement& statement, const DbError& error) {
  const std::string_view state = error.sqlstate();
  // Without a savepoint the block is over; a cancel or a conflict says
  // nothing the run at COMMIT could check.
  if (savepoints_.empty() || state == sqlstate::kSerializationFailure ||
      state == sqlstate::kQueryCanceled || state == sqlstate::kAdminShutdown) {
    return;
  }
  Entry entry;
  entry.kind = Entry::Kind::kFailed;
  entry.statement = statement;
  entry.digest = ErrorDigest(error);
  entry.known = true;
  entries_.push_back(std::move(entry));
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
    // A body may run more than once (txn_engine.h, "Blocks not in memory"):
    // only the last run's error counts.
    error = nullptr;
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
