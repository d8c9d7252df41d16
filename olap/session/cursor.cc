// Cursor: PostgreSQL 15's DoPortalRunFetch, PortalRunSelect and
// DoPortalRewind (pquery.c) over materialized rows (cursor.h).
//
// The physical position: 0 before the first row, k on row k, n + 1 after
// the last; PostgreSQL's flags say which (at_start_: 0, at_end_: n + 1,
// else pos_). A forward read returns the rows after the position, a
// backward read those before it, as a tuplestore's read pointer does.
#include "olap/session/cursor.h"

#include <algorithm>

namespace forktail {
namespace {

constexpr const char* kDuplicateCursor = "42P03";
constexpr const char* kObjectNotInPrerequisiteState = "55000";

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

}  // namespace

Cursor::Cursor(std::vector<ResultColumn> columns, std::vector<Row> rows, Options options)
    : columns_(std::move(columns)), rows_(std::move(rows)), options_(options) {}

void Cursor::ThrowCannotScroll() {
  throw DbError(kObjectNotInPrerequisiteState, "cursor can only scan forward")
      .WithHint("Declare it with SCROLL option to enable backward scan.");
}

uint64_t Cursor::RunSelect(bool forward, int64_t count, std::vector<Row>* out) {
  const uint64_t n = rows_.size();
  const bool all = count == sql::kFetchAll;
  if (forward) {
    if (at_end_ || count <= 0) return 0;
    const uint64_t start = at_start_ ? 0 : pos_;
    const uint64_t wanted = all ? n : static_cast<uint64_t>(count);
    const uint64_t got = std::min(wanted, n - std::min(start, n));
    if (out != nullptr) {
      out->insert(out->end(), rows_.begin() + static_cast<ptrdiff_t>(start),
                  rows_.begin() + static_cast<ptrdiff_t>(start + got));
    }
    if (got > 0) at_start_ = false;
    if (all || got < wanted) at_end_ = true;
    pos_ += got;
    return got;
  }
  if (!options_.scroll) ThrowCannotScroll();
  if (at_start_ || count <= 0) return 0;
  const uint64_t start = at_end_ ? n + 1 : pos_;
  const uint64_t wanted = all ? n + 1 : static_cast<uint64_t>(count);
  const uint64_t got = std::min(wanted, start - 1);
  if (out != nullptr) {
    for (uint64_t k = 0; k < got; k++) out->push_back(rows_[start - 2 - k]);
  }
  if (got > 0 && at_end_) {
    at_end_ = false;
    pos_++;
  }
  if (all || got < wanted) {
    at_start_ = true;
    pos_ = 0;
  } else {
    pos_ -= got;
  }
  return got;
}

void Cursor::Rewind() {
  // Nothing to do, and no NO SCROLL error, when the cursor never moved.
  if (at_start_ && !at_end_) return;
  if (!options_.scroll) ThrowCannotScroll();
  at_start_ = true;
  at_end_ = false;
  pos_ = 0;
}

StatementResult Cursor::Fetch(const sql::FetchStmt& fetch) {
  const bool move = fetch.move;
  StatementResult result;
  std::vector<Row>* out = move ? nullptr : &result.rows;
  auto finish = [&](uint64_t processed) {
    result.command_tag = std::string(move ? "MOVE " : "FETCH ") + std::to_string(processed);
    if (!move) {
      result.columns = columns_;
      result.binary_rows = options_.binary;
    }
    return result;
  };
  sql::FetchDirection direction = fetch.direction;
  int64_t count = fetch.count;
  switch (direction) {
    case sql::FetchDirection::kForward:
    case sql::FetchDirection::kBackward:
      if (count < 0) {
        direction = direction == sql::FetchDirection::kForward ? sql::FetchDirection::kBackward
                                                               : sql::FetchDirection::kForward;
        count = -count;
      }
      break;
    case sql::FetchDirection::kAbsolute:
      if (count > 0) {
        // Rewind and advance count - 1 rows, unless moving from where the
        // cursor is costs less (which decides whether a NO SCROLL cursor
        // fails, so it follows PostgreSQL's choice exactly).
        if (count - 1 < static_cast<int64_t>(pos_ / 2)) {
          Rewind();
          if (count > 1) RunSelect(true, count - 1, nullptr);
        } else {
          int64_t at = static_cast<int64_t>(pos_);
          if (at_end_) at++;
          if (count <= at) {
            RunSelect(false, at - count + 1, nullptr);
          } else if (count > at + 1) {
            RunSelect(true, count - at - 1, nullptr);
          }
        }
        return finish(RunSelect(true, 1, out));
      }
      if (count < 0) {
        RunSelect(true, sql::kFetchAll, nullptr);
        if (count < -1) RunSelect(false, -count - 1, nullptr);
        return finish(RunSelect(false, 1, out));
      }
      Rewind();
      return finish(RunSelect(true, 0, out));
    case sql::FetchDirection::kRelative:
      if (count > 0) {
        if (count > 1) RunSelect(true, count - 1, nullptr);
        return finish(RunSelect(true, 1, out));
      }
      if (count < 0) {
        if (count < -1) RunSelect(false, -count - 1, nullptr);
        return finish(RunSelect(false, 1, out));
      }
      direction = sql::FetchDirection::kForward;  // RELATIVE 0 is FORWARD 0
      break;
  }
  bool forward = direction == sql::FetchDirection::kForward;
  if (count == 0) {
    // The current row again, if there is one; MOVE 0 says whether there is.
    const bool on_row = !at_start_ && !at_end_;
    if (move) return finish(on_row ? 1 : 0);
    if (on_row) {
      RunSelect(false, 1, nullptr);
      count = 1;
      forward = true;
    }
  }
  if (move && !forward && count == sql::kFetchAll) {  // MOVE BACKWARD ALL: a rewind
    uint64_t moved = pos_;
    if (moved > 0 && !at_end_) moved--;
    Rewind();
    return finish(moved);
  }
  return finish(RunSelect(forward, count, out));
}

bool DefaultScrollable(const LogicalOp& plan, const sql::Query& query) {
  if (!query.locking.empty()) return false;
  switch (plan.kind) {
    case LogicalOpKind::kSort:
    case LogicalOpKind::kGet:
      return true;
    case LogicalOpKind::kValues:
      // SELECT without FROM binds to one row of no columns: PostgreSQL's
      // Result node, which cannot scan backward.
      return !plan.columns.empty();
    case LogicalOpKind::kProject:
    case LogicalOpKind::kFilter:
    case LogicalOpKind::kLimit:
      return !plan.children.empty() && DefaultScrollable(*plan.children[0], query);
    case LogicalOpKind::kUnion:
      if (plan.set_distinct) return false;
      return std::all_of(plan.children.begin(), plan.children.end(),
                         [&](const LogicalOpPtr& c) { return DefaultScrollable(*c, query); });
    default:
      return false;
  }
}

void CursorSet::ExpectAbsent(const std::string& name) const {
  if (cursors_.count(name) != 0) {
    throw DbError(kDuplicateCursor, "cursor " + Quoted(name) + " already exists");
  }
}

void CursorSet::Add(const std::string& name, std::unique_ptr<Cursor> cursor, bool in_transaction) {
  ExpectAbsent(name);
  cursors_[name] = Entry{std::move(cursor), in_transaction, declared_++};
}

void CursorSet::CloseDeclaredSince(uint64_t mark) {
  std::erase_if(cursors_, [&](const auto& named) { return named.second.serial >= mark; });
}

Cursor& CursorSet::Get(const std::string& name) {
  auto it = cursors_.find(name);
  if (it == cursors_.end()) {
    throw DbError(sqlstate::kInvalidCursorName, "cursor " + Quoted(name) + " does not exist");
  }
  return *it->second.cursor;
}

const Cursor* CursorSet::Find(const std::string& name) const {
  auto it = cursors_.find(name);
  return it == cursors_.end() ? nullptr : it->second.cursor.get();
}

void CursorSet::Close(const std::string& name) {
  Get(name);
  cursors_.erase(name);
}

void CursorSet::CloseAll() { cursors_.clear(); }

void CursorSet::EndTransaction(bool committed) {
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    Entry& e = it->second;
    const bool keep = e.cursor->options().hold && (committed || !e.in_transaction);
    if (keep) {
      e.in_transaction = false;
      ++it;
    } else {
      it = cursors_.erase(it);
    }
  }
}

}  // namespace forktail
