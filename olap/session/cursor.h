// Cursors: DECLARE / FETCH / MOVE / CLOSE of one session, answered as
// PostgreSQL 15's portals answer them (docs/client_contract.md, "Cursors").
//
// A cursor holds its query's whole result, materialized when DECLARE runs;
// FETCH and MOVE only move over those rows. Why materialize: inside BEGIN
// ... COMMIT every statement is a step on the transaction thread that is
// undone afterwards (optimistic_block.h), so no executor state can stay open
// between the client's FETCHes. DECLARE is that step: its query runs once on
// the block's state and the result is recorded like any read, so COMMIT runs
// it again and fails with 40001 when it would now return anything else.
// That is stricter than PostgreSQL (a change to rows the client never
// fetched also fails the block) and serializable: everything the client saw
// is part of the result COMMIT checks. A WITH HOLD cursor keeps its rows
// after COMMIT, as PostgreSQL's materialized holdable portals do. The cost
// is memory: the whole result, even when the client fetches a few rows (a
// cursor over an analytical query read on a snapshot too).
//
// Position (PortalRunSelect's model): before the first row, on row k, or
// after the last row; FETCH NEXT returns the row after the current one, FETCH
// PRIOR the one before it. Backward motion needs a scrollable cursor: SCROLL,
// WITH HOLD, or, when neither SCROLL nor NO SCROLL is given, a query whose
// PostgreSQL plan can scan backward (DefaultScrollable); else 55000.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/plan/logical.h"
#include "olap/session/statement_result.h"

namespace forktail {

class Cursor {
 public:
  struct Options {
    bool scroll = false;  // backward motion allowed
    bool binary = false;  // BINARY: simple-protocol FETCH answers in binary
    bool hold = false;    // WITH HOLD: survives its transaction's COMMIT
  };
  Cursor(std::vector<ResultColumn> columns, std::vector<Row> rows, Options options);

  // FETCH (rows, tag "FETCH n") or MOVE (tag "MOVE n"), as PostgreSQL's
  // DoPortalRunFetch. Throws 55000 "cursor can only scan forward" when a
  // cursor that cannot scroll would move backward.
  StatementResult Fetch(const sql::FetchStmt& fetch);

  const std::vector<ResultColumn>& columns() const { return columns_; }
  const Options& options() const { return options_; }

 private:
  // PortalRunSelect: up to `count` rows forward or backward (sql::kFetchAll:
  // all), appended to `out` unless it is null; returns how many.
  uint64_t RunSelect(bool forward, int64_t count, std::vector<Row>* out);
  // DoPortalRewind.
  void Rewind();
  [[noreturn]] static void ThrowCannotScroll();

  std::vector<ResultColumn> columns_;
  std::vector<Row> rows_;
  Options options_;
  bool at_start_ = true;
  bool at_end_ = false;
  uint64_t pos_ = 0;  // the current row (1-based) unless at an end
};

// The scrollability PostgreSQL gives a cursor declared with neither SCROLL
// nor NO SCROLL: whether its plan can run backward (ExecSupportsBackwardScan).
// Decided on Forktail's bound plan as PostgreSQL's planner would shape it: a
// sort, a scan, VALUES and UNION ALL of such can; joins, aggregation,
// DISTINCT, windows, set operations and a SELECT without FROM (Result)
// cannot; FOR UPDATE / SHARE never can.
bool DefaultScrollable(const LogicalOp& plan, const sql::Query& query);

// The session's cursors, by name.
class CursorSet {
 public:
  // Throws 42P03 `cursor "c" already exists`. `in_transaction`: declared in
  // the transaction that is still open (a block), which decides what a
  // rollback drops.
  void Add(const std::string& name, std::unique_ptr<Cursor> cursor, bool in_transaction);
  void ExpectAbsent(const std::string& name) const;  // the same 42P03
  // Throws 34000 `cursor "c" does not exist`.
  Cursor& Get(const std::string& name);
  const Cursor* Find(const std::string& name) const;
  void Close(const std::string& name);  // 34000 when there is none
  void CloseAll();
  // The open transaction ended. A cursor without HOLD ends with it; a WITH
  // HOLD cursor declared in it stays if it committed. Closing is not undone
  // by a rollback (as in PostgreSQL).
  void EndTransaction(bool committed);
  // SAVEPOINT takes a mark; ROLLBACK TO it closes the cursors declared since
  // (PostgreSQL closes those of the rolled-back subtransaction).
  uint64_t Mark() const { return declared_; }
  void CloseDeclaredSince(uint64_t mark);

 private:
  struct Entry {
    std::unique_ptr<Cursor> cursor;
    bool in_transaction = false;
    uint64_t serial = 0;  // declaration order
  };
  std::map<std::string, Entry, std::less<>> cursors_;
  uint64_t declared_ = 0;
};

}  // namespace forktail
