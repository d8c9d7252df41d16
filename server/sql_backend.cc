#include "server/sql_backend.h"

#include "olap/session/sql_session.h"

namespace forktail {
namespace {

std::vector<BackendColumn> Columns(const std::vector<ResultColumn>& columns) {
  std::vector<BackendColumn> out;
  out.reserve(columns.size());
  for (const ResultColumn& c : columns) out.push_back({c.name, c.type});
  return out;
}

BackendResult Convert(StatementResult&& r) {
  BackendResult out;
  out.command_tag = std::move(r.command_tag);
  out.columns = Columns(r.columns);
  out.rows = std::move(r.rows);
  out.notices = std::move(r.notices);
  out.binary_rows = r.binary_rows;
  if (r.copy_out) {
    CopyOutData& c = *r.copy_out;
    out.copy_out =
        BackendCopyOut{c.binary, c.columns, std::move(c.data), std::move(c.message_ends)};
  }
  return out;
}

class SqlBackendSession : public BackendSession {
 public:
  SqlBackendSession(SqlFrontend& engine, SessionOptions options)
      : session_(engine, std::move(options)) {}

  void Execute(std::string_view sql, const ResultCallback& on_result) override {
    session_.Execute(sql, [&](StatementResult&& r) { on_result(Convert(std::move(r))); });
  }

  std::shared_ptr<const BackendStatement> Prepare(
      std::string_view sql, const std::vector<std::optional<Type>>& parameter_types) override {
    std::shared_ptr<const PreparedStatement> prepared = session_.Prepare(sql, parameter_types);
    auto out = std::make_shared<BackendStatement>();
    out->sql = prepared->sql;
    out->parameter_types.assign(prepared->parameter_types.begin(), prepared->parameter_types.end());
    out->columns = Columns(prepared->columns);
    out->handle = prepared;
    return out;
  }

  BackendResult ExecutePrepared(const BackendStatement& statement,
                                const std::vector<Value>& parameters) override {
    const auto* prepared = static_cast<const PreparedStatement*>(statement.handle.get());
    return Convert(session_.ExecutePrepared(*prepared, parameters));
  }

  bool HasPreparedStatement(const std::string& name) const override {
    return session_.HasPreparedStatement(name);
  }

  void CopyIn(std::string_view bytes) override {
    // After a failed CopyIn the engine has ended the COPY; the connection
    // stops feeding it, but guard anyway.
    if (session_.in_copy()) session_.CopyIn(bytes);
  }
  BackendResult CopyDone() override { return Convert(session_.CopyDone()); }
  void CopyFail(std::string_view message) override {
    if (!session_.in_copy()) return;
    try {
      session_.CopyFail(message);
    } catch (const DbError&) {
      // 57014 by design: the connection reports it.
    }
  }

  void Cancel() override { session_.Cancel(); }
  int NotificationFd() const override { return session_.notification_fd(); }
  std::vector<Notice> TakeNotifications() override {
    std::vector<Notice> out;
    for (Notification& n : session_.TakeNotifications()) {
      out.push_back({n.sender_pid, std::move(n.channel), std::move(n.payload)});
    }
    return out;
  }
  std::optional<std::vector<BackendColumn>> DescribeCursor(const std::string& name) override {
    std::optional<std::vector<ResultColumn>> columns = session_.CursorColumns(name);
    if (!columns) return std::nullopt;
    return Columns(*columns);
  }
  void CloseCursor(const std::string& name) override { session_.CloseCursorPortal(name); }
  void SetPipelined(bool more_input) override { session_.SetPipelined(more_input); }
  void WaitDurable() override { session_.WaitDurable(); }
  void ReleaseFinished() override { session_.ReleaseFinished(); }
  void SetMoreBeforeSync(bool more_before_sync) override {
    session_.SetMoreBeforeSync(more_before_sync);
  }
  void EndImplicitTransaction() override { session_.EndImplicitTransaction(); }
  void AbortImplicitTransaction() override { session_.AbortImplicitTransaction(); }
  BackendTxnStatus status() const override {
    return static_cast<BackendTxnStatus>(static_cast<char>(session_.status()));
  }
  std::optional<uint64_t> ParametersVersion() const override {
    return session_.parameters_version();
  }
  std::string GetParameter(std::string_view name) const override {
    return session_.GetParameter(name);
  }

 private:
  SqlSession session_;
};

}  // namespace

std::unique_ptr<BackendSession> SqlBackend::OpenSession(const BackendSessionOptions& options) {
  SessionOptions session_options;
  session_options.user = options.user;
  session_options.database = options.database;
  session_options.application_name = options.application_name;
  session_options.time_zone = options.time_zone;
  session_options.backend_pid = options.pid;
  session_options.backends = options.backends;
  session_options.protocol_statement_exists = options.protocol_statements.contains;
  session_options.drop_protocol_statement = options.protocol_statements.drop;
  session_options.drop_protocol_statements = options.protocol_statements.drop_all;
  return std::make_unique<SqlBackendSession>(engine_, std::move(session_options));
}

}  // namespace forktail
