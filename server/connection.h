// One client connection: the PostgreSQL v3 protocol state machine on top of a
// SocketStream, driving one BackendSession.
//
// Phases: startup (SSLRequest / GSSENCRequest answered 'N', CancelRequest
// forwarded to the host, StartupMessage), authentication (trust or
// SCRAM-SHA-256), then the main loop of simple-query, extended-query and
// COPY-in messages. Errors from statements become ErrorResponse and the
// connection goes on (in the extended protocol: skipping to the next Sync);
// a malformed message (ProtocolError) is answered FATAL 08P01 and ends the
// connection, and nothing else.
//
// Prepared statements and portals live here, not in the backend: a portal
// holds the statement's full result after its first Execute and hands it out
// max_rows at a time (PortalSuspended in between).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/backend.h"
#include "server/messages.h"
#include "server/scram.h"
#include "server/server_options.h"
#include "server/socket_stream.h"
#include "server/tls_context.h"
#include "storage/value/timezone.h"

namespace forktail {

class Connection;

// What a connection needs from the server that owns it.
class ConnectionHost {
 public:
  virtual ~ConnectionHost() = default;
  virtual const ServerOptions& options() const = 0;
  virtual QueryBackend& backend() = 0;
  virtual const ScramVerifier* scram_verifier() const = 0;
  // Null when TLS is not configured.
  virtual const TlsContext* tls_context() const = 0;
  // Once `connection` has authenticated: ends its startup phase, counts it
  // against max_connections and makes it cancellable; false: too many
  // clients (or it was closed to make room for a newer connection).
  virtual bool Admit(Connection* connection) = 0;
  // The connection ends (from any phase); called by its destructor.
  virtual void Leave(Connection* connection) = 0;
  virtual void CancelBackend(int32_t pid, int32_t key) = 0;
  // pg_stat_activity, pg_cancel_backend, pg_terminate_backend.
  virtual BackendDirectory* backends() = 0;
  // True once the server shuts down: no new statement starts.
  virtual bool stopping() const = 0;
};

class Connection {
 public:
  Connection(int fd, int stop_fd, ConnectionHost& host, int32_t pid, int32_t secret_key);
  ~Connection();

  // Serves the client until it leaves, breaks the protocol or the server stops.
  void Run();
  // Thread-safe (called under the host's registry lock): cancels the running statement.
  void Cancel();
  // Thread-safe (under the host's registry lock): ends the connection with
  // FATAL 57P01 as PostgreSQL's pg_terminate_backend does, its running
  // statement canceled, its block rolled back.
  void Terminate();
  // Thread-safe (under the host's registry lock), before Admit: the host
  // needs this connection's startup slot for a newer one. Its thread wakes,
  // sends FATAL 53300 "sorry, too many clients already" and ends.
  void EvictFromStartup();
  // Thread-safe: what pg_stat_activity shows of this connection.
  BackendActivity Activity() const;

  int32_t pid() const { return pid_; }
  int32_t secret_key() const { return secret_key_; }

 private:
  struct ConnectionEnded {};  // thrown to unwind when the peer is gone
  struct Prepared {
    std::shared_ptr<const BackendStatement> statement;  // null for an empty query
    std::vector<int32_t> client_oids;
    std::string sql;
    std::vector<std::optional<Type>> declared_types;  // what Parse passed to Prepare
    // An unconstrained numeric parameter (OID 1700, typmod -1) keeps its own
    // scale in PostgreSQL, a DECIMAL has one: the statement prepared again
    // with the scales a Bind brought, keyed by them (-1: not such a parameter).
    mutable std::map<std::vector<int>, std::shared_ptr<const BackendStatement>> rescaled;
  };
  struct Portal {
    std::shared_ptr<const Prepared> prepared;
    std::shared_ptr<const BackendStatement> statement;  // prepared's, or a rescaled one
    std::vector<Value> parameters;
    std::vector<int16_t> result_formats;  // as Bind sent them (none, one for all, one each)
    bool executed = false;
    BackendResult result;
    size_t next_row = 0;
  };

  // connection.cc
  bool Startup();  // false: the connection is done (cancel request, refusal, EOF)
  void Authenticate(const std::string& user);
  void SendStartupParameters();
  void MainLoop();
  // Sets the read deadline for the client's next message from the session's
  // idle timeouts (none: no deadline).
  void ArmIdleTimeout();
  void Dispatch(char type, std::string_view body);
  void HandleQuery(std::string_view body);
  void RunCopyIn(const BackendResult& start);
  // COPY ... TO STDOUT: CopyOutResponse, the CopyData messages, CopyDone.
  void SendCopyOut(const BackendCopyOut& copy);
  void ReadOrEnd(char* type, std::string_view* body);
  // The session's TimeZone, for timestamptz text in and out.
  datetime::TimeZonePtr SessionZone() const;
  void SendResultRows(const BackendResult& result, const std::vector<int16_t>& formats,
                      size_t begin, size_t end);
  void SendNotices(const BackendResult& result);
  void SendError(const DbError& error, const char* severity = "ERROR");
  void SendFatal(const char* sqlstate, const std::string& message);
  void SendReadyForQuery();
  // LISTEN: the session's waiting notifications, when it is idle outside a block.
  void SendNotifications();
  // pg_stat_activity's view: a statement starts (`sql`), the backend is
  // idle again (after ReadyForQuery's status).
  void NoteActive(std::string_view sql);
  void NoteIdle();
  // FATAL 57P01 if Terminate() was called; true then.
  bool EndIfTerminated();
  // FATAL 53300 if EvictFromStartup() was called and no FATAL went out yet;
  // true if it was called.
  bool EndIfEvicted();
  // Flushes the output once every acknowledgement in it is durable.
  bool FlushDurable();
  void ReportChangedParameters();

  // connection_extended.cc
  void HandleParse(std::string_view body);
  void HandleBind(std::string_view body);
  void HandleDescribe(std::string_view body);
  void HandleExecute(std::string_view body);
  void HandleClose(std::string_view body);
  void HandleSync();
  std::vector<FieldDescription> Describe(const std::vector<BackendColumn>& columns,
                                         const std::vector<int16_t>& formats) const;
  std::shared_ptr<const Prepared> FindStatement(const std::string& name) const;
  std::shared_ptr<const BackendStatement> Rescaled(const Prepared& prepared,
                                                   const std::vector<int>& scales);

  SocketStream stream_;
  ConnectionHost& host_;
  const int32_t pid_;
  const int32_t secret_key_;
  std::string user_;
  BackendSessionOptions session_options_;
  std::unique_ptr<BackendSession> session_;
  // session_ as Cancel() sees it: set once the session exists; the host stops
  // calling Cancel (Leave) before session_ is destroyed.
  std::atomic<BackendSession*> cancel_target_{nullptr};
  std::atomic<bool> terminating_{false};
  std::atomic<bool> evicted_{false};
  bool fatal_sent_ = false;
  mutable std::mutex activity_mu_;
  BackendActivity activity_;  // guarded by activity_mu_
  bool admitted_ = false;
  void EndGroupAfterError(bool extended);
  bool skip_to_sync_ = false;  // after an error in the extended protocol
  // The last message was an extended-protocol one other than Sync or Flush:
  // its replies may wait for them (ReadOrEnd).
  bool defer_output_ = false;
  static constexpr size_t kDeferredOutputBytes = 8192;
  std::map<std::string, std::shared_ptr<const Prepared>> statements_;
  std::map<std::string, Portal> portals_;
  std::map<std::string, std::string> reported_parameters_;
  std::optional<uint64_t> reported_version_;  // the parameters' version they were read at
  // Which idle timeout the pending read's deadline stands for.
  enum class IdleTimeout : uint8_t { kNone, kInTransaction, kSession };
  IdleTimeout idle_timeout_ = IdleTimeout::kNone;
};

}  // namespace forktail
