// SqlSession: SELECTs routed to snapshot processes (see sql_frontend.h).
#include <algorithm>
#include <chrono>

#include "olap/parser/ast.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/session/format/row_codec.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"

namespace forktail {
namespace {

// The statement alone, preceded by one blank per character of the text
// before it: the child parses exactly one statement, and every position it
// reports is the position in the client's string (positions count
// characters, so a multi-byte character before the statement is one blank).
std::string PaddedStatementText(std::string_view text, const sql::Statement& s) {
  std::string out;
  size_t begin = std::min(s.begin, text.size());
  size_t end = std::min(std::max(s.end, begin), text.size());
  for (size_t i = 0; i < begin; i++) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) out.push_back(' ');
  }
  out.append(text.substr(begin, end - begin));
  return out;
}

}  // namespace

// The snapshot a SELECT reads (DESIGN.md "Freshness"). By default it holds
// every transaction committed before the statement arrived: its floor is
// the engine's last commit LSN now (acknowledged commits are at or before
// it). Statements arriving while a fork is made share it (Acquire waits for
// the fork under way and takes it if it is new enough). With
// forktail.max_snapshot_age_ms = N the session opts into an older snapshot:
// any at most N ms old will do, as long as it holds the session's own last
// commit (read-your-writes).
SnapshotLease SqlSession::AcquireSnapshot() {
  SnapshotManager& snapshots = *engine_.snapshots();
  const std::string max_age_text = parameters_->Get("forktail.max_snapshot_age_ms");
  const double max_age = max_age_text.empty() ? 0 : std::stod(max_age_text);
  if (max_age <= 0) {
    const wal::Lsn committed = engine_.database().last_commit_lsn();
    const uint64_t floor =
        std::max<uint64_t>(last_commit_lsn_, committed == wal::kInvalidLsn ? 0 : committed);
    return snapshots.Acquire(floor);
  }
  SnapshotLease lease = snapshots.Acquire(last_commit_lsn_);
  for (const SnapshotInfo& info : snapshots.List()) {
    if (info.pid == lease.pid() && info.age_ms > max_age) {
      lease.Release();
      snapshots.Refresh();
      lease = snapshots.Acquire(last_commit_lsn_);
      break;
    }
  }
  return lease;
}

StatementResult SqlSession::ReadFromSnapshot(const Request& request) {
  SnapshotLease lease = AcquireSnapshot();
  const uint64_t committed = engine_.database().committed_count();
  last_read_ = {
      LastRead::Where::kSnapshot,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lease.created())
          .count(),
      committed > lease.commits() ? committed - lease.commits() : 0};
  QueryRequest query_request;
  query_request.sql = PaddedStatementText(request.text, *request.statement);
  query_request.time_zone = request.time_zone ? request.time_zone->name() : "UTC";
  query_request.user = catalog_session_->user;
  query_request.database = catalog_session_->database;
  query_request.backend_pid = catalog_session_->backend_pid;
  query_request.settings = parameters_->All();
  for (size_t i = 0; i < request.parameters.size(); i++) {
    const std::optional<Type>& t =
        i < request.parameter_types.size() ? request.parameter_types[i] : std::nullopt;
    query_request.parameter_types.push_back(t.value_or(request.parameters[i].type()));
    query_request.parameters.push_back(request.parameters[i]);
  }
  std::unique_ptr<SnapshotQuery> query = lease.Start(EncodeQueryRequest(query_request));
  {
    std::lock_guard<std::mutex> l(cancel_mu_);
    SnapshotQuery* q = query.get();
    cancel_hook_ = [q] { q->Cancel(); };
    if (cancel_requested_.load()) q->Cancel();
  }
  struct ClearHook {
    SqlSession* session;
    ~ClearHook() {
      std::lock_guard<std::mutex> l(session->cancel_mu_);
      session->cancel_hook_ = nullptr;
    }
  } clear{this};
  ResultDecoder decoder;
  std::string batch;
  try {
    while (query->Next(&batch)) decoder.Add(batch);
  } catch (const DbError& e) {
    throw WithPositionFromMessage(e);
  }
  if (!decoder.has_header() || !decoder.has_tag()) {
    throw DbError(sqlstate::kProtocolViolation, "incomplete result from snapshot process");
  }
  // The snapshot may hold commits not yet durable (forked after they were
  // applied, before their fdatasync): answer once they are, and never if
  // the log fails first (their own clients get 58030 then).
  if (lease.lsn() > 0) {
    Status durable = engine_.database().WaitDurable(lease.lsn());
    if (!durable.ok()) ThrowLogFailed(durable);
  }
  return decoder.Take();
}

}  // namespace forktail
