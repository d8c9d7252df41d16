// What the wire protocol needs from a SQL engine, shaped like olap/session/sql_session.h
// (olap/session/sql_session.h: SqlFrontend / SqlSession) so that the protocol can
// be written and tested against a scripted fake while the engine is built.
// SqlBackend (sql_backend.h) adapts the real SqlSession to it.
//
// Threads: a BackendSession is used by its connection's thread only, except
// Cancel(), which the thread serving a CancelRequest (or shutdown) calls.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/plan/catalog/backend_directory.h"
#include "storage/value/value.h"

namespace forktail {

struct BackendColumn {
  std::string name;
  Type type;
};

// COPY ... TO STDOUT: CopyOutResponse's formats and the CopyData messages.
struct BackendCopyOut {
  bool binary = false;  // the overall format and every column's
  int columns = 0;
  std::string data;                  // every message's bytes, back to back
  std::vector<size_t> message_ends;  // where each CopyData message ends in `data`
};

struct BackendResult {
  // "SELECT 3", "INSERT 0 5", "BEGIN", ...; "COPY_IN" starts COPY FROM STDIN.
  std::string command_tag;
  std::vector<BackendColumn> columns;  // empty: the statement returns no rows
  std::vector<Row> rows;
  std::vector<std::string> notices;
  // Simple query: the rows go out in binary (FETCH from a BINARY cursor).
  // With "COPY_IN": the COPY is FORMAT binary.
  bool binary_rows = false;
  // COPY ... TO STDOUT: sent as CopyOutResponse, CopyData..., CopyDone, then
  // CommandComplete with command_tag.
  std::optional<BackendCopyOut> copy_out;
};

// 'I' idle, 'T' in a transaction block, 'E' in a failed transaction block.
enum class BackendTxnStatus : char { kIdle = 'I', kInBlock = 'T', kFailed = 'E' };

// A prepared statement as Describe reports it. `handle` is the backend's own
// object (the engine's PreparedStatement).
struct BackendStatement {
  std::string sql;
  std::vector<std::optional<Type>> parameter_types;  // nullopt: could not be inferred
  std::vector<BackendColumn> columns;
  std::shared_ptr<const void> handle;
};

// The wire protocol's named prepared statements (Parse with a name), kept by
// the connection. They share one namespace with SQL PREPARE, as in
// PostgreSQL: PREPARE may not take a name they use, and DEALLOCATE and
// DISCARD ALL drop them. Called on the connection's thread while a
// statement runs; unset: an embedded session, none.
struct ProtocolStatementNames {
  std::function<bool(const std::string& name)> contains;
  std::function<bool(const std::string& name)> drop;  // false: there was none
  std::function<void()> drop_all;
};

struct BackendSessionOptions {
  std::string user;
  std::string database;
  std::string application_name;
  std::string options;  // the startup packet's "options" (e.g. "-c key=value")
  // The startup packet's TimeZone (pgJDBC sends the JVM's zone) or the one
  // its "options" set (-c TimeZone=...), applied as SET TimeZone; empty: the
  // default.
  std::string time_zone;
  int32_t pid = 0;  // as BackendKeyData tells the client (pg_backend_pid())
  // The server's backends (pg_stat_activity, pg_cancel_backend); outlives
  // the session.
  BackendDirectory* backends = nullptr;
  ProtocolStatementNames protocol_statements;
};

class BackendSession {
 public:
  virtual ~BackendSession() = default;

  // Simple query: every statement in order, each result handed to
  // `on_result` as soon as it is complete (so that it reaches the client
  // before a later statement's error); throws DbError (with position) for the
  // first failing statement. A "COPY_IN" result is the last one.
  using ResultCallback = std::function<void(BackendResult&&)>;
  virtual void Execute(std::string_view sql, const ResultCallback& on_result) = 0;
  // `parameter_types`: the Parse message's types (nullopt: unspecified).
  virtual std::shared_ptr<const BackendStatement> Prepare(
      std::string_view sql, const std::vector<std::optional<Type>>& parameter_types) = 0;
  virtual BackendResult ExecutePrepared(const BackendStatement& statement,
                                        const std::vector<Value>& parameters) = 0;
  virtual void CopyIn(std::string_view bytes) = 0;
  virtual BackendResult CopyDone() = 0;
  // Ends the COPY without loading anything; does not throw (the connection
  // reports 57014 itself).
  virtual void CopyFail(std::string_view message) = 0;
  // Thread-safe: makes the running (or next) statement fail with 57014.
  virtual void Cancel() = 0;
  // A cursor (DECLARE) is a portal too: Describe of a portal the protocol
  // did not bind answers the cursor's columns (nullopt: no such cursor), and
  // Close of one closes it.
  virtual std::optional<std::vector<BackendColumn>> DescribeCursor(const std::string& name) {
    (void)name;
    return std::nullopt;
  }
  virtual void CloseCursor(const std::string& name) { (void)name; }
  // Whether SQL PREPARE made a statement of this name (a Parse may not reuse
  // it: ProtocolStatementNames).
  virtual bool HasPreparedStatement(const std::string& name) const {
    (void)name;
    return false;
  }
  // Pipelining: while `more_input` (the client has sent more that is already
  // buffered), a statement that commits on its own may finish before its
  // commit is durable. The connection calls WaitDurable() before any output
  // reaches the client; it throws DbError 58030 if the log failed, and then
  // nothing buffered may be sent.
  virtual void SetPipelined(bool more_input) { (void)more_input; }
  virtual void WaitDurable() {}
  // Called when the replies are out and the client has sent nothing more:
  // frees what a finished transaction left (a long pipeline's block), work
  // the client need not wait for.
  virtual void ReleaseFinished() {}
  // The extended protocol's implicit transaction: the statements executed
  // before a Sync are one transaction. Before each Execute the connection
  // says whether more may come before the Sync (the next buffered message
  // is not one); at the Sync (or a simple Query) it ends the transaction,
  // which throws DbError when its commit fails.
  virtual void SetMoreBeforeSync(bool more_before_sync) { (void)more_before_sync; }
  virtual void EndImplicitTransaction() {}
  // An error of the extended protocol outside a statement (a Bind that
  // cannot decode its parameters): the implicit transaction is rolled back.
  virtual void AbortImplicitTransaction() {}
  virtual BackendTxnStatus status() const = 0;
  // LISTEN: a descriptor readable while notifications wait (-1: none), and
  // the waiting ones (pid, channel, payload), which the connection sends
  // when the session is idle outside a transaction block.
  struct Notice {
    int32_t pid;
    std::string channel;
    std::string payload;
  };
  virtual int NotificationFd() const { return -1; }
  virtual std::vector<Notice> TakeNotifications() { return {}; }
  // SHOW values, for ParameterStatus ("" when unknown).
  virtual std::string GetParameter(std::string_view name) const = 0;
  // Moves whenever a parameter may have changed, never back to an earlier
  // number; nullopt: unknown (the connection then reads them all).
  virtual std::optional<uint64_t> ParametersVersion() const { return std::nullopt; }
};

class QueryBackend {
 public:
  virtual ~QueryBackend() = default;
  // Called on the connection's thread after authentication; may throw DbError
  // (e.g. 3D000 for an unknown database).
  virtual std::unique_ptr<BackendSession> OpenSession(const BackendSessionOptions& options) = 0;
};

}  // namespace forktail
