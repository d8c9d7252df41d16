// The PostgreSQL wire-protocol server: a listening socket, an acceptor
// thread, and one thread per connection.
//
// Why threads and not an epoll loop: a connection's work is a blocking call
// into SqlSession (it waits for the transaction thread or a snapshot process),
// so an event loop would need a worker pool underneath anyway; with at most
// max_connections (default 100) clients a thread each is simple and cheap.
//
// Limits: a connection first holds one of max_startup_connections startup
// slots, until it has sent its startup packet and authenticated (within
// authentication_timeout), and only then takes one of max_connections session
// slots (the next authenticated client gets FATAL 53300 "sorry, too many
// clients already"). So sockets that never finish their startup (half a
// startup packet, a stalled SCRAM exchange) cannot lock authenticated users
// out: when the startup slots are full, a new connection makes room by
// closing the one that has waited longest (it gets 53300), and a real
// client, which finishes in milliseconds, gets through. Threads are bounded
// by both budgets plus a few that end refused connections; when those are
// all busy the acceptor waits for one to end (the kernel's backlog holds
// new clients meanwhile), so a flood cannot grow threads without bound.
//
// Shutdown (Stop, or the destructor): stop accepting, wake every connection
// (an eventfd every wait polls), cancel running statements, join all threads.
// Idle clients receive FATAL 57P01.
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/backend.h"
#include "server/connection.h"
#include "server/scram.h"
#include "server/server_options.h"

namespace forktail {

class WireServer : private ConnectionHost, private BackendDirectory {
 public:
  WireServer(QueryBackend& backend, ServerOptions options);
  ~WireServer() override;
  WireServer(const WireServer&) = delete;
  WireServer& operator=(const WireServer&) = delete;

  // Binds, listens and starts accepting. Throws DbError (58030) when the
  // address cannot be bound.
  void Start();
  // Idempotent; returns when every connection thread has ended.
  void Stop();

  int port() const { return port_; }  // the bound port (useful with port 0)
  const std::string& listen_address() const { return options_.listen_address; }
  int active_sessions() const;
  // Connections still in startup or authentication.
  int starting_connections() const;
  // Connections closed to make room for a newer one in startup.
  uint64_t startup_evictions() const { return evicted_.load(); }
  uint64_t connections_accepted() const { return accepted_.load(); }

 private:
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  // ConnectionHost
  const ServerOptions& options() const override { return options_; }
  QueryBackend& backend() override { return backend_; }
  const ScramVerifier* scram_verifier() const override { return verifier_.get(); }
  const TlsContext* tls_context() const override { return tls_.get(); }
  bool Admit(Connection* connection) override;
  void Leave(Connection* connection) override;
  void CancelBackend(int32_t pid, int32_t key) override;
  bool stopping() const override { return stopping_.load(); }
  BackendDirectory* backends() override { return this; }

  // BackendDirectory: the admitted connections.
  std::vector<BackendActivity> List() const override;
  bool Cancel(int32_t pid) override;
  bool Terminate(int32_t pid) override;

  void AcceptLoop();
  void ReapFinishedWorkers();

  QueryBackend& backend_;
  const ServerOptions options_;
  std::unique_ptr<ScramVerifier> verifier_;
  std::unique_ptr<TlsContext> tls_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> evicted_{0};
  std::atomic<int32_t> next_pid_{1000};
  std::thread acceptor_;
  std::list<Worker> workers_;  // touched by the acceptor thread, and by Stop after it ended

  mutable std::mutex registry_mu_;
  std::map<int32_t, Connection*> sessions_;  // admitted connections by pid
  std::list<Connection*> starting_;          // not admitted yet, oldest first
};

}  // namespace forktail
