// LISTEN / UNLISTEN / NOTIFY and pg_notify() (notification_hub.h), with
// PostgreSQL's transaction rules: outside a block each takes effect with its
// statement; inside one, LISTEN / UNLISTEN and the notifications wait for
// COMMIT (ROLLBACK drops them), and a notification equal to one the block
// already sent is sent once.
#include <unistd.h>

#include <algorithm>

#include "olap/parser/ast.h"
#include "olap/session/sql_session.h"
#include "storage/error.h"

namespace forktail {

StatementResult SqlSession::ListenCommand(const sql::Statement& statement) {
  const sql::ListenStmt& l = *statement.listen;
  StatementResult result;
  switch (l.action) {
    case sql::ListenStmt::Action::kListen:
    case sql::ListenStmt::Action::kUnlisten: {
      const bool listen = l.action == sql::ListenStmt::Action::kListen;
      result.command_tag = listen ? "LISTEN" : "UNLISTEN";
      if (InBlock()) {
        pending_listens_.push_back({listen, l.channel});
      } else {
        ApplyListen(listen, l.channel);
      }
      return result;
    }
    case sql::ListenStmt::Action::kNotify:
      Notify(l.channel, l.payload, statement.position);
      result.command_tag = "NOTIFY";
      return result;
  }
  return result;
}

void SqlSession::Notify(const std::string& channel, const std::string& payload, int position) {
  if (channel.empty()) {
    throw DbError(sqlstate::kInvalidParameterValue, "channel name cannot be empty", position);
  }
  if (payload.size() > NotificationHub::kMaxPayloadBytes) {
    throw DbError(sqlstate::kInvalidParameterValue, "payload string too long", position);
  }
  Notification n{options_.backend_pid != 0 ? options_.backend_pid : static_cast<int32_t>(getpid()),
                 channel, payload};
  if (!InBlock()) {
    engine_.notifications().Notify(n);
    return;
  }
  if (std::find(pending_notifications_.begin(), pending_notifications_.end(), n) ==
      pending_notifications_.end()) {
    pending_notifications_.push_back(std::move(n));
  }
}

void SqlSession::ApplyListen(bool listen, const std::string& channel) {
  NotificationHub& hub = engine_.notifications();
  if (listen) {
    if (!listener_) listener_ = std::make_unique<NotificationHub::Listener>();
    hub.Listen(channel, listener_.get());
    listening_.insert(channel);
    return;
  }
  if (!listener_) return;
  if (channel.empty()) {
    hub.UnlistenAll(listener_.get());
    listening_.clear();
  } else {
    hub.Unlisten(channel, listener_.get());
    listening_.erase(channel);
  }
}

void SqlSession::EndTransactionNotifications(bool committed) {
  std::vector<PendingListen> listens;
  std::vector<Notification> notifications;
  listens.swap(pending_listens_);
  notifications.swap(pending_notifications_);
  if (!committed) return;
  for (const PendingListen& p : listens) ApplyListen(p.listen, p.channel);
  for (const Notification& n : notifications) engine_.notifications().Notify(n);
}

int SqlSession::notification_fd() const { return listener_ ? listener_->wake_fd() : -1; }

std::vector<Notification> SqlSession::TakeNotifications() {
  if (!listener_) return {};
  return listener_->Take();
}

}  // namespace forktail
