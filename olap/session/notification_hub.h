// LISTEN / NOTIFY: PostgreSQL's asynchronous notifications between the
// sessions of one server.
//
// A session that listens owns a Listener (a queue and an eventfd). NOTIFY
// delivers to every Listener registered for the channel, the sender's too,
// once the sending transaction commits (the session holds a block's
// notifications until COMMIT and drops them at ROLLBACK). The connection
// waits on wake_fd() while the client is idle outside a block and sends what
// Take() returns as NotificationResponse messages; inside a block they wait
// for its end, as in PostgreSQL.
//
// Threads: every method is thread-safe; a Listener is unregistered (its
// session's UnlistenAll) before it is destroyed.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace forktail {

struct Notification {
  int32_t sender_pid = 0;
  std::string channel;
  std::string payload;
  bool operator==(const Notification&) const = default;
};

class NotificationHub {
 public:
  class Listener {
   public:
    Listener();
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    // Readable while notifications wait.
    int wake_fd() const { return fd_; }
    // The waiting notifications, oldest first; wake_fd() is quiet after.
    std::vector<Notification> Take();

   private:
    friend class NotificationHub;
    void Deliver(const Notification& n);

    std::mutex mu_;
    std::deque<Notification> queue_;
    int fd_ = -1;
  };

  // A payload may be at most this long (PostgreSQL's 22023 beyond).
  static constexpr size_t kMaxPayloadBytes = 7999;

  void Listen(const std::string& channel, Listener* listener);
  void Unlisten(const std::string& channel, Listener* listener);
  void UnlistenAll(Listener* listener);
  // Delivers `n` to every listener of n.channel.
  void Notify(const Notification& n);

 private:
  std::mutex mu_;
  std::map<std::string, std::set<Listener*>> channels_;
};

}  // namespace forktail
