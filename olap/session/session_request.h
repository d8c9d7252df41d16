// Internal to SqlSession's .cc files: one statement to run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/plan/binder/binder.h"
#include "olap/session/format/copy_reader.h"
#include "olap/session/sql_session.h"
#include "storage/value/timezone.h"

namespace forktail {

// COPY's option list, checked for `direction` (format/copy_options.h).
CopyOptions CopyOptionsOf(const sql::CopyStmt& copy, CopyDirection direction);

// The server file COPY may read (kFrom) or write (kTo), as the engine's
// policy allows (SqlFrontendOptions::copy_from_files / copy_to_files),
// resolved; throws 42501 with PostgreSQL's hint otherwise.
std::string AllowedServerFile(const SqlFrontendOptions& options, const std::string& name,
                              CopyDirection direction);

// 58030: the write-ahead log failed (Database::log_failed), so memory may
// hold commits that are not durable; nothing may read or write them.
[[noreturn]] void ThrowLogFailed(const Status& health);

// The tables a bound statement reads or writes: its plan's tables, a
// write's target, and the tables the target's foreign keys reach either way
// (checks and actions), from `schemas`; only rows of them for a read or a
// write by primary key. nullopt when its plan does not say
// (sequence functions: they also read session state). A transaction
// block's step runs again only the earlier writes to these
// (block/optimistic_block.h).
std::optional<StepFootprint> StatementTables(const PreBoundStatement& pre, const Catalog& schemas);

struct SqlSession::Request {
  const sql::Statement* statement = nullptr;
  // Shares ownership of *statement, so that an optimistic block can keep the
  // statement to run it again at COMMIT (Owned()).
  std::shared_ptr<const sql::Statement> statement_owner;
  std::string_view text;  // the string the statement's positions refer to
  std::vector<std::optional<Type>> parameter_types;
  std::vector<Value> parameters;
  // now()'s value: the block's start (0 outside a block: the statement's).
  int64_t transaction_timestamp = 0;
  // The session's TimeZone when the statement arrived: its timestamptz text
  // I/O and zone-dependent expressions use it, also when an optimistic
  // block runs it again at COMMIT after a later SET TIME ZONE.
  datetime::TimeZonePtr time_zone;
  // The session as the binder sees it (BindOptions::session).
  std::shared_ptr<const CatalogSession> catalog_session;
  // Set while the statement runs on the transaction thread (RunStatement):
  // what its nextval / currval / setval / lastval calls reach. Mutable so
  // that a run sets it on the request itself instead of on a copy (a
  // block's statement runs again at every step that reaches it and at
  // COMMIT; copying its parameters each time was a tenth of a re-run).
  mutable SequenceAccess* sequences = nullptr;
  // A prepared statement's executions share this (PreparedStatement::binding).
  std::shared_ptr<PreparedBinding> binding;

  // The query a statement holds (DECLARE ... FOR query, COPY (query) TO) as
  // a request of its own: the same text, parameters and ownership.
  Request Inner(const sql::Statement& inner) const {
    Request r = *this;
    r.statement = &inner;
    r.statement_owner = std::shared_ptr<const sql::Statement>(statement_owner, &inner);
    r.binding = nullptr;
    return r;
  }

  BindOptions Bind() const {
    BindOptions options;
    options.parameter_types = parameter_types;
    options.parameters = parameters;
    options.transaction_timestamp = transaction_timestamp;
    options.session = catalog_session;
    options.sequences = sequences;
    return options;
  }
};

// A Request that owns what it refers to: a block's statement, kept to run
// again at COMMIT after the client's query string is gone.
struct SqlSession::OwnedRequest {
  explicit OwnedRequest(const Request& r) : statement(r.statement_owner), text(r.text), request(r) {
    request.text = text;
  }
  OwnedRequest(const OwnedRequest&) = delete;
  OwnedRequest& operator=(const OwnedRequest&) = delete;

  std::shared_ptr<const sql::Statement> statement;
  std::string text;
  Request request;  // refers to the members above
};

struct SqlSession::CopyState {
  std::string table;
  std::vector<std::string> columns;
  CopyOptions options;
  std::unique_ptr<CopyLoader> loader;  // outside a block: over the Database
  bool in_block = false;               // inside: created on the transaction thread
  std::string input;                   // an optimistic block's COPY: all of it, until CopyDone
};

}  // namespace forktail
