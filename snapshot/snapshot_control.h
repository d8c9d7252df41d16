// SnapshotControlServer: the control endpoint `forktail snapshots --data DIR`
// talks to. A running server (`forktail serve`) starts one beside its
// SnapshotManager; it listens on the Unix stream socket DIR/forktail.ctl
// (owner-only permissions) and answers one request per connection:
//
//   client -> server   one line: "snapshots\n"
//   server -> client   the FormatSnapshotTable() text, then a line
//                      "created N died N killed N refused N start_failures N\n",
//                      then EOF
//   anything else      "error: unknown request \"...\"\n", EOF
//
// Text rather than frames: the only client is the command line, and a human
// can use `socat - UNIX-CONNECT:DIR/forktail.ctl` as well.
//
// One thread accepts and answers (List() is a short, bounded call). The
// listening socket and every accepted connection are registered with
// ForkExclusions, so no snapshot or checkpoint process inherits them. A stale
// socket file from a crashed server is removed on start; a live one (a
// connect succeeds) means another server owns the directory: DbError 58030.
// Paths longer than sun_path are reached through /proc/self/fd/N/ of the
// directory.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <thread>

#include "storage/status.h"

namespace forktail {

class SnapshotManager;

inline constexpr const char kSnapshotControlSocket[] = "forktail.ctl";

class SnapshotControlServer {
 public:
  // Starts listening at once; throws DbError when the socket cannot be created.
  // `manager` must outlive this object.
  SnapshotControlServer(SnapshotManager* manager, const std::string& data_dir);
  // Stops the thread, closes and removes the socket.
  ~SnapshotControlServer();
  SnapshotControlServer(const SnapshotControlServer&) = delete;
  SnapshotControlServer& operator=(const SnapshotControlServer&) = delete;

  const std::string& path() const { return path_; }
  // The answer to one request line (without the newline); used by the thread.
  std::string Answer(std::string_view request);

 private:
  void Loop();
  void Serve(int fd);

  SnapshotManager* const manager_;
  std::string path_;
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Client side: sends `request` to DIR/forktail.ctl and returns the whole
// answer. IoError naming the socket when nothing listens there.
Status QuerySnapshotControl(const std::string& data_dir, std::string_view request,
                            std::string* answer);

}  // namespace forktail
