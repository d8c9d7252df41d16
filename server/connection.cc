#include "server/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <tuple>
#include <utility>

#include "server/pg_types.h"

namespace forktail {
namespace {

// The GUCs PostgreSQL reports in ParameterStatus, in its order, with the
// values Forktail has when the backend does not say otherwise.
struct ReportedParameter {
  const char* name;
  const char* fallback;
};
constexpr ReportedParameter kReported[] = {
    {"application_name", ""},      {"client_encoding", "UTF8"},
    {"DateStyle", "ISO, MDY"},     {"default_transaction_read_only", "off"},
    {"in_hot_standby", "off"},     {"integer_datetimes", "on"},
    {"IntervalStyle", "postgres"}, {"is_superuser", "on"},
    {"server_encoding", "UTF8"},   {"server_version", ""},
    {"session_authorization", ""}, {"standard_conforming_strings", "on"},
    {"TimeZone", "UTC"},
};

// The TimeZone a startup packet's "options" sets ("-c TimeZone=Asia/Tokyo",
// "--timezone=UTC", as libpq's PGOPTIONS or psycopg's options= send it);
// words split at unescaped blanks, a backslash escapes the next character.
// Empty if none; the other settings there are not read.
std::string TimeZoneFromOptions(std::string_view options) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    if (c == '\\' && i + 1 < options.size()) {
      words.back() += options[++i];
    } else if (c == ' ' || c == '\t') {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  std::string zone;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string setting;
    if (words[i] == "-c" && i + 1 < words.size()) {
      setting = words[++i];
    } else if (words[i].rfind("-c", 0) == 0 && words[i].size() > 2 && words[i][2] != '-') {
      setting = words[i].substr(2);
    } else if (words[i].rfind("--", 0) == 0) {
      setting = words[i].substr(2);
    }
    size_t eq = setting.find('=');
    if (eq != std::string::npos && strcasecmp(setting.substr(0, eq).c_str(), "timezone") == 0) {
      zone = setting.substr(eq + 1);
    }
  }
  return zone;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// pg_stat_activity's client_addr and client_port: empty and -1 for a
// Unix-domain socket.
std::pair<std::string, int32_t> PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char buf[INET6_ADDRSTRLEN] = "";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {"", -1};
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    return {buf, ntohs(in->sin_port)};
  }
  if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    return {buf, ntohs(in6->sin6_port)};
  }
  return {"", -1};
}

bool IsLoopbackPeer(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return false;
  if (addr.ss_family == AF_UNIX) return true;
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

std::string PeerHost(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char buf[INET6_ADDRSTRLEN] = "?";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    if (addr.ss_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, buf, sizeof buf);
    } else if (addr.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, buf, sizeof buf);
    }
  }
  return buf;
}

}  // namespace

Connection::Connection(int fd, int stop_fd, ConnectionHost& host, int32_t pid, int32_t secret_key)
    : stream_(fd, stop_fd), host_(host), pid_(pid), secret_key_(secret_key) {
  activity_.pid = pid;
  activity_.backend_start = NowMicros();
  std::tie(activity_.client_addr, activity_.client_port) = PeerAddress(fd);
}

Connection::~Connection() { host_.Leave(this); }

void Connection::Cancel() {
  if (BackendSession* s = cancel_target_.load()) s->Cancel();
}

void Connection::Terminate() {
  terminating_.store(true);
  Cancel();
  // Wakes the thread if it waits for the client: its read ends, and
  // EndIfTerminated says why before the connection closes.
  ::shutdown(stream_.fd(), SHUT_RD);
}

void Connection::EvictFromStartup() {
  evicted_.store(true);
  // Wakes the thread if it waits for the client (its read ends) and makes
  // whatever it reads next the end: EndIfEvicted says why.
  ::shutdown(stream_.fd(), SHUT_RD);
}

BackendActivity Connection::Activity() const {
  std::lock_guard<std::mutex> lock(activity_mu_);
  return activity_;
}

void Connection::NoteActive(std::string_view sql) {
  const int64_t now = NowMicros();
  std::lock_guard<std::mutex> lock(activity_mu_);
  activity_.state = "active";
  activity_.query.assign(sql);
  activity_.query_start = now;
  activity_.state_change = now;
  if (activity_.xact_start == 0) activity_.xact_start = now;
}

void Connection::NoteIdle() {
  const BackendTxnStatus status = session_ ? session_->status() : BackendTxnStatus::kIdle;
  std::string application_name = session_ ? session_->GetParameter("application_name") : "";
  const int64_t now = NowMicros();
  std::lock_guard<std::mutex> lock(activity_mu_);
  activity_.state = status == BackendTxnStatus::kIdle      ? "idle"
                    : status == BackendTxnStatus::kInBlock ? "idle in transaction"
                                                           : "idle in transaction (aborted)";
  activity_.state_change = now;
  if (status == BackendTxnStatus::kIdle) activity_.xact_start = 0;
  activity_.application_name = std::move(application_name);
}

bool Connection::EndIfEvicted() {
  if (!evicted_.load() || admitted_) return false;
  if (!fatal_sent_) SendFatal(sqlstate::kTooManyConnections, "sorry, too many clients already");
  return true;
}

bool Connection::EndIfTerminated() {
  if (!terminating_.load()) return false;
  SendFatal(sqlstate::kAdminShutdown, "terminating connection due to administrator command");
  return true;
}

void Connection::Run() {
  try {
    stream_.set_deadline(SocketStream::Clock::now() + host_.options().authentication_timeout);
    if (!Startup()) {
      EndIfEvicted();
      return;
    }
    stream_.set_deadline(std::nullopt);
    MainLoop();
  } catch (const ConnectionEnded&) {
    EndIfEvicted();
  } catch (const ProtocolError& e) {
    // An evicted client's read ended mid-message: that is no protocol error.
    if (!EndIfEvicted()) SendFatal(e.sqlstate(), e.what());
  } catch (const DbError& e) {
    SendFatal(e.sqlstate(), e.what());  // e.g. 28P01 after the delay, evicted meanwhile or not
  } catch (const std::exception& e) {
    SendFatal(sqlstate::kInternalError, e.what());
  }
  if (session_ && session_->status() != BackendTxnStatus::kIdle) {
    // An open transaction of a vanished client is rolled back.
    try {
      session_->Execute("ROLLBACK", [](BackendResult&&) {});
    } catch (const std::exception&) {
    }
  }
}

bool Connection::Startup() {
  StartupPacket packet;
  while (true) {
    std::string_view body;
    SocketStream::ReadStatus s = stream_.ReadStartupPacket(&body);
    if (s == SocketStream::ReadStatus::kTimedOut) {
      SendFatal(sqlstate::kProtocolViolation, "canceling authentication due to timeout");
      return false;
    }
    if (s != SocketStream::ReadStatus::kOk) return false;
    packet = DecodeStartupPacket(body);
    if (packet.code == kSslRequestCode && host_.tls_context() != nullptr && !stream_.tls()) {
      stream_.output()->push_back('S');
      if (!stream_.Flush() || !stream_.StartTls(*host_.tls_context())) return false;
      continue;
    }
    if (packet.code == kSslRequestCode || packet.code == kGssEncRequestCode) {
      stream_.output()->push_back('N');  // no TLS (not configured, or already on) / no GSSAPI
      if (!stream_.Flush()) return false;
      continue;
    }
    break;
  }
  if (packet.code == kCancelRequestCode) {
    host_.CancelBackend(packet.cancel_pid, packet.cancel_key);
    return false;  // PostgreSQL answers nothing and closes
  }
  if ((packet.code >> 16) != 3) {
    char msg[128];
    std::snprintf(msg, sizeof msg,
                  "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0",
                  packet.code >> 16, packet.code & 0xffff);
    SendFatal(sqlstate::kFeatureNotSupported, msg);
    return false;
  }
  for (const auto& [name, value] : packet.parameters) {
    if (name == "user") session_options_.user = value;
    if (name == "database") session_options_.database = value;
    if (name == "application_name") session_options_.application_name = value;
    if (name == "options") session_options_.options = value;
    if (strcasecmp(name.c_str(), "TimeZone") == 0) session_options_.time_zone = value;
  }
  // PostgreSQL applies "options" after the packet's own parameters.
  if (std::string zone = TimeZoneFromOptions(session_options_.options); !zone.empty()) {
    session_options_.time_zone = zone;
  }
  user_ = session_options_.user;
  if (user_.empty()) {
    SendFatal(sqlstate::kInvalidAuthorizationSpecification,
              "no PostgreSQL user name specified in startup packet");
    return false;
  }
  if (session_options_.database.empty()) session_options_.database = user_;
  Authenticate(user_);
  // A session slot only for an authenticated client (its startup slot is
  // given back here): clients that never finish cannot fill max_connections.
  if (!host_.Admit(this)) {
    SendFatal(sqlstate::kTooManyConnections, "sorry, too many clients already");
    return false;
  }
  admitted_ = true;
  session_options_.pid = pid_;
  session_options_.backends = host_.backends();
  // Named statements only: the unnamed one is not in PREPARE's namespace.
  session_options_.protocol_statements.contains = [this](const std::string& name) {
    return !name.empty() && statements_.count(name) != 0;
  };
  session_options_.protocol_statements.drop = [this](const std::string& name) {
    return !name.empty() && statements_.erase(name) != 0;
  };
  session_options_.protocol_statements.drop_all = [this] {
    for (auto it = statements_.begin(); it != statements_.end();) {
      it = it->first.empty() ? std::next(it) : statements_.erase(it);
    }
  };
  {
    std::lock_guard<std::mutex> lock(activity_mu_);
    activity_.user = user_;
    activity_.database = session_options_.database;
  }
  session_ = host_.backend().OpenSession(session_options_);
  cancel_target_.store(session_.get());
  EncodeAuthentication(stream_.output(), 0);
  SendStartupParameters();
  EncodeBackendKeyData(stream_.output(), pid_, secret_key_);
  SendReadyForQuery();
  return true;
}

void Connection::Authenticate(const std::string& user) {
  const ServerOptions& options = host_.options();
  const ScramVerifier* verifier = host_.scram_verifier();
  if (verifier == nullptr) {
    if (IsLoopbackPeer(stream_.fd())) return;
    throw DbError(sqlstate::kInvalidAuthorizationSpecification,
                  "no pg_hba.conf entry for host \"" + PeerHost(stream_.fd()) + "\", user \"" +
                      user + "\", database \"" + session_options_.database + "\", no encryption");
  }
  const std::string kMechanism = "SCRAM-SHA-256";
  EncodeAuthentication(stream_.output(), 10, kMechanism + std::string(2, '\0'));
  if (!stream_.Flush()) throw ConnectionEnded{};
  char type;
  std::string_view body;
  ReadOrEnd(&type, &body);
  if (type != 'p')
    throw ProtocolError("expected SASL response, got message type " + std::to_string(type));
  SaslInitialResponse initial = DecodeSaslInitialResponse(body);
  if (initial.mechanism != kMechanism || !initial.data) {
    throw ProtocolError("client selected an invalid SASL authentication mechanism");
  }
  ScramExchange exchange(*verifier);
  EncodeAuthentication(stream_.output(), 11, exchange.HandleClientFirst(*initial.data));
  if (!stream_.Flush()) throw ConnectionEnded{};
  ReadOrEnd(&type, &body);
  if (type != 'p')
    throw ProtocolError("expected SASL response, got message type " + std::to_string(type));
  std::optional<std::string> server_final = exchange.HandleClientFinal(body);
  if (!server_final || user != options.user) {
    std::this_thread::sleep_for(options.auth_failure_delay);
    throw DbError(sqlstate::kInvalidPassword,
                  "password authentication failed for user \"" + user + "\"");
  }
  EncodeAuthentication(stream_.output(), 12, *server_final);
}

void Connection::SendStartupParameters() {
  reported_version_ = session_->ParametersVersion();
  for (const ReportedParameter& p : kReported) {
    std::string value = session_->GetParameter(p.name);
    if (value.empty()) value = p.fallback;
    if (std::string_view(p.name) == "server_version" && value.empty()) {
      value = host_.options().server_version;
    }
    if (std::string_view(p.name) == "session_authorization") value = user_;
    if (std::string_view(p.name) == "application_name") value = session_options_.application_name;
    reported_parameters_[p.name] = value;
    EncodeParameterStatus(stream_.output(), p.name, value);
  }
}

void Connection::ReportChangedParameters() {
  // Most statements change no parameter: skip the dozen lookups then.
  const std::optional<uint64_t> version = session_->ParametersVersion();
  if (version && reported_version_ == version) return;
  reported_version_ = version;
  for (auto& [name, value] : reported_parameters_) {
    std::string now = session_->GetParameter(name);
    if (!now.empty() && now != value) {
      value = now;
      EncodeParameterStatus(stream_.output(), name, value);
    }
  }
}

// Every acknowledgement in the output must be durable before it leaves:
// pipelined statements may have finished before their commit's fsync
// (BackendSession::SetPipelined). If the log failed, what is buffered is not
// true: it is dropped, and the client gets 58030 and loses the connection.
bool Connection::FlushDurable() {
  if (session_) {
    try {
      session_->WaitDurable();
    } catch (const DbError& e) {
      stream_.output()->clear();
      SendError(e, "FATAL");
      (void)stream_.Flush();
      throw ConnectionEnded{};
    }
  }
  return stream_.Flush();
}

void Connection::ReadOrEnd(char* type, std::string_view* body) {
  // Whatever was produced goes out before we block for the client, except
  // the replies to extended-protocol messages before a Sync or Flush: as
  // PostgreSQL does, they wait for it, or until kDeferredOutputBytes of
  // them, so that a pipeline's results travel in a few large writes
  // (psycopg's executemany read 4 results per recv otherwise).
  if (!stream_.HasBufferedInput() && !stream_.output()->empty() &&
      (!defer_output_ || stream_.output()->size() >= kDeferredOutputBytes) && !FlushDurable()) {
    throw ConnectionEnded{};
  }
  if (session_ && stream_.output()->empty() && !stream_.HasBufferedInput()) {
    session_->ReleaseFinished();
  }
  SocketStream::ReadStatus status;
  while (true) {
    // LISTEN: a notification that arrives while the client is idle outside
    // a block goes out at once (psycopg's notifies() waits for it).
    const bool idle = session_ && session_->status() == BackendTxnStatus::kIdle;
    stream_.set_wake_fd(idle ? session_->NotificationFd() : -1);
    status = stream_.ReadMessage(type, body, host_.options().max_message_bytes);
    stream_.set_wake_fd(-1);
    if (status != SocketStream::ReadStatus::kWoken) break;
    SendNotifications();
    if (!FlushDurable()) throw ConnectionEnded{};
  }
  switch (status) {
    case SocketStream::ReadStatus::kOk:
    case SocketStream::ReadStatus::kWoken:
      return;
    case SocketStream::ReadStatus::kStopped:
      SendFatal(sqlstate::kAdminShutdown, "terminating connection due to administrator command");
      throw ConnectionEnded{};
    case SocketStream::ReadStatus::kTimedOut:
      if (idle_timeout_ == IdleTimeout::kInTransaction) {
        SendFatal("25P03", "terminating connection due to idle-in-transaction timeout");
      } else if (idle_timeout_ == IdleTimeout::kSession) {
        SendFatal("57P05", "terminating connection due to idle-session timeout");
      } else {
        SendFatal(sqlstate::kProtocolViolation, "canceling authentication due to timeout");
      }
      throw ConnectionEnded{};
    case SocketStream::ReadStatus::kClosed:
      EndIfTerminated();
      throw ConnectionEnded{};
  }
}

// idle_in_transaction_session_timeout / idle_session_timeout, as
// PostgreSQL's: a client that sends nothing for that long, inside a
// transaction block or outside one, loses its connection (its block is
// rolled back by Run).
void Connection::ArmIdleTimeout() {
  idle_timeout_ = IdleTimeout::kNone;
  stream_.set_deadline(std::nullopt);
  if (!session_) return;
  const bool in_block = session_->status() != BackendTxnStatus::kIdle;
  const char* name = in_block ? "idle_in_transaction_session_timeout" : "idle_session_timeout";
  const std::string value = session_->GetParameter(name);
  const long ms = value.empty() ? 0 : std::strtol(value.c_str(), nullptr, 10);
  if (ms <= 0) return;
  idle_timeout_ = in_block ? IdleTimeout::kInTransaction : IdleTimeout::kSession;
  stream_.set_deadline(SocketStream::Clock::now() + std::chrono::milliseconds(ms));
}

void Connection::MainLoop() {
  while (true) {
    char type;
    std::string_view body;
    ArmIdleTimeout();
    ReadOrEnd(&type, &body);
    idle_timeout_ = IdleTimeout::kNone;
    stream_.set_deadline(std::nullopt);
    if (type == 'X') return;
    if (EndIfTerminated()) return;
    if (host_.stopping()) {
      SendFatal(sqlstate::kAdminShutdown, "terminating connection due to administrator command");
      return;
    }
    bool extended = std::string_view("PBDECSH").find(type) != std::string_view::npos;
    defer_output_ = extended && type != 'S' && type != 'H';
    if (skip_to_sync_ && extended && type != 'S') continue;
    // More of the client's messages already here: its statements may share
    // a log flush (FlushDurable waits before anything is sent).
    if (session_) {
      session_->SetPipelined(stream_.HasBufferedInput());
      session_->SetMoreBeforeSync(type == 'E' && stream_.PeekType() != 'S');
    }
    try {
      Dispatch(type, body);
    } catch (const ProtocolError&) {
      throw;
    } catch (const DbError& e) {
      if (EndIfTerminated()) return;  // its statement was canceled for it
      SendError(e);
      EndGroupAfterError(extended);
    } catch (const std::bad_alloc&) {
      SendError(DbError(sqlstate::kOutOfMemory, "out of memory"));
      EndGroupAfterError(extended);
    }
  }
}

// After an error the extended protocol skips to the Sync, and the
// statements executed since the last one are rolled back with it, as in
// PostgreSQL (the session did so already if a statement failed).
void Connection::EndGroupAfterError(bool extended) {
  if (!extended) {
    SendReadyForQuery();
    return;
  }
  skip_to_sync_ = true;
  if (session_) session_->AbortImplicitTransaction();
}

void Connection::Dispatch(char type, std::string_view body) {
  switch (type) {
    case 'Q':
      HandleQuery(body);
      return;
    case 'P':
      HandleParse(body);
      return;
    case 'B':
      HandleBind(body);
      return;
    case 'D':
      HandleDescribe(body);
      return;
    case 'E':
      HandleExecute(body);
      return;
    case 'C':
      HandleClose(body);
      return;
    case 'S':
      HandleSync();
      return;
    case 'H':
      if (!FlushDurable()) throw ConnectionEnded{};
      return;
    case 'd':
    case 'c':
    case 'f':
      return;  // COPY messages outside COPY are ignored, as the protocol says
    case 'F':
      throw DbError(sqlstate::kFeatureNotSupported, "function call messages are not supported");
    default: {
      char msg[64];
      std::snprintf(msg, sizeof msg, "invalid frontend message type %d",
                    static_cast<unsigned char>(type));
      throw ProtocolError(msg);
    }
  }
}

void Connection::HandleQuery(std::string_view body) {
  std::string sql = DecodeQuery(body);
  // Executes not yet followed by a Sync end here (a failed commit is this
  // Query's error).
  session_->EndImplicitTransaction();
  NoteActive(sql);
  try {
    bool any = false;
    std::optional<BackendResult> copy;
    session_->Execute(sql, [&](BackendResult&& r) {
      any = true;
      SendNotices(r);
      if (r.command_tag == "COPY_IN") {
        copy = std::move(r);  // the sub-protocol runs once Execute has returned
        return;
      }
      if (r.copy_out) {
        SendCopyOut(*r.copy_out);
      } else if (!r.columns.empty()) {
        // A BINARY cursor's FETCH answers in binary in the simple protocol.
        const std::vector<int16_t> formats(r.binary_rows ? r.columns.size() : 0, 1);
        EncodeRowDescription(stream_.output(), Describe(r.columns, formats));
        SendResultRows(r, formats, 0, r.rows.size());
      }
      EncodeCommandComplete(stream_.output(), r.command_tag);
      // Not only SET and RESET change what the client was told: ROLLBACK
      // undoes a SET TIME ZONE, COMMIT ends a SET LOCAL, DISCARD ALL resets.
      ReportChangedParameters();
    });
    if (copy) RunCopyIn(*copy);
    if (!any) EncodeEmpty(stream_.output(), 'I');
  } catch (const ProtocolError&) {
    throw;
  } catch (const DbError& e) {
    SendError(e);
  }
  SendReadyForQuery();
}

void Connection::SendCopyOut(const BackendCopyOut& copy) {
  EncodeCopyOutResponse(stream_.output(), copy.columns, copy.binary);
  size_t begin = 0;
  for (size_t end : copy.message_ends) {
    EncodeRaw(stream_.output(), 'd', std::string_view(copy.data).substr(begin, end - begin));
    begin = end;
    if (stream_.output()->size() > 256 * 1024 && !FlushDurable()) throw ConnectionEnded{};
  }
  EncodeEmpty(stream_.output(), 'c');
}

void Connection::RunCopyIn(const BackendResult& start) {
  EncodeCopyInResponse(stream_.output(), static_cast<int>(start.columns.size()), start.binary_rows);
  if (!FlushDurable()) throw ConnectionEnded{};
  std::optional<DbError> failure;
  while (true) {
    char type;
    std::string_view body;
    try {
      ReadOrEnd(&type, &body);
    } catch (...) {
      if (!failure) session_->CopyFail("connection lost during COPY");
      throw;
    }
    switch (type) {
      case 'd':
        if (failure) break;
        try {
          session_->CopyIn(body);
        } catch (const DbError& e) {
          failure = e;  // PostgreSQL reads on to CopyDone/CopyFail, then reports
        }
        break;
      case 'c': {
        if (failure) throw *failure;
        BackendResult done = session_->CopyDone();
        SendNotices(done);
        EncodeCommandComplete(stream_.output(), done.command_tag);
        return;
      }
      case 'f': {
        std::string message = DecodeQuery(body);
        if (failure) throw *failure;
        session_->CopyFail(message);
        throw DbError(sqlstate::kQueryCanceled, "COPY from stdin failed: " + message);
      }
      case 'H':
      case 'S':
        break;
      default: {
        if (!failure) session_->CopyFail("unexpected message during COPY");
        char msg[80];
        std::snprintf(msg, sizeof msg, "unexpected message type 0x%02X during COPY from stdin",
                      static_cast<unsigned char>(type));
        throw ProtocolError(msg);
      }
    }
  }
}

datetime::TimeZonePtr Connection::SessionZone() const {
  datetime::TimeZonePtr zone = datetime::TimeZone::Find(session_->GetParameter("TimeZone"));
  return zone ? zone : datetime::TimeZone::Utc();
}

void Connection::SendResultRows(const BackendResult& result, const std::vector<int16_t>& formats,
                                size_t begin, size_t end) {
  // timestamptz text goes out in the session's zone as it is now (a SET
  // TIME ZONE earlier in the same query string counts).
  datetime::ScopedTimeZone zone(SessionZone());
  std::vector<std::optional<std::string>> fields(result.columns.size());
  for (size_t i = begin; i < end; ++i) {
    const Row& row = result.rows[i];
    for (size_t c = 0; c < fields.size(); ++c) {
      if (c >= row.size() || row[c].is_null()) {
        fields[c].reset();
      } else if (!formats.empty() && formats[c] == 1) {
        fields[c] = EncodeBinaryValue(row[c]);
      } else {
        fields[c] = EncodeTextValue(row[c]);
      }
    }
    EncodeDataRow(stream_.output(), fields);
    if (stream_.output()->size() > 256 * 1024 && !FlushDurable()) throw ConnectionEnded{};
  }
}

void Connection::SendNotices(const BackendResult& result) {
  for (const std::string& notice : result.notices) {
    ErrorFields f;
    f.severity = "NOTICE";
    f.sqlstate = sqlstate::kSuccessfulCompletion;
    f.message = notice;
    // "WARNING 25P01:  SET LOCAL can only be used in transaction blocks"
    constexpr std::string_view kWarning = "WARNING ";
    if (notice.starts_with(kWarning) && notice.size() > kWarning.size() + 8 &&
        notice.compare(kWarning.size() + 5, 3, ":  ") == 0) {
      f.severity = "WARNING";
      f.sqlstate = notice.substr(kWarning.size(), 5);
      f.message = notice.substr(kWarning.size() + 8);
    }
    SplitMessageFields(&f);  // "drop cascades to 2 other objects\nDETAIL:  ..."
    EncodeErrorResponse(stream_.output(), 'N', f);
  }
}

void Connection::SendError(const DbError& error, const char* severity) {
  ErrorFields f;
  f.severity = severity;
  f.sqlstate = error.sqlstate();
  f.message = error.what();
  f.position = error.position();
  f.hint = error.hint();
  f.table = error.table();
  f.column = error.column();
  f.constraint = error.constraint();
  SplitMessageFields(&f);
  EncodeErrorResponse(stream_.output(), 'E', f);
}

void Connection::SendFatal(const char* sqlstate, const std::string& message) {
  fatal_sent_ = true;
  if (session_) {  // the acknowledgements before it must be true (FlushDurable)
    try {
      session_->WaitDurable();
    } catch (const DbError&) {
      stream_.output()->clear();
    }
  }
  SendError(DbError(sqlstate, message), "FATAL");
  (void)stream_.Flush();
}

void Connection::SendNotifications() {
  if (!session_ || session_->status() != BackendTxnStatus::kIdle) return;
  for (const BackendSession::Notice& n : session_->TakeNotifications()) {
    EncodeNotificationResponse(stream_.output(), n.pid, n.channel, n.payload);
  }
}

void Connection::SendReadyForQuery() {
  NoteIdle();
  SendNotifications();  // those of a commit, before its ReadyForQuery
  char status = session_ ? static_cast<char>(session_->status()) : 'I';
  EncodeReadyForQuery(stream_.output(), status);
  if (!stream_.HasBufferedInput() && !FlushDurable()) throw ConnectionEnded{};
}

}  // namespace forktail
