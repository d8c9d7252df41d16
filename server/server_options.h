// Settings of the wire-protocol server (`forktail serve` flags and config keys).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace forktail {

struct ServerOptions {
  std::string listen_address = "127.0.0.1";
  int port = 5433;  // 0: any free port (tests); WireServer::port() tells which
  int max_connections = 100;
  // Largest message body accepted (PostgreSQL's cap is 1 GiB); larger lengths
  // close the connection before anything is allocated.
  size_t max_message_bytes = size_t{1} << 30;
  // A configured password turns on SCRAM-SHA-256 for every connection;
  // without one, loopback clients are trusted and others refused.
  std::string user;
  std::string password;
  // PEM certificate (chain) and private key: SSLRequest is answered 'S' and
  // the connection continues over TLS. Both empty: 'N' (no TLS).
  std::string ssl_cert_file;
  std::string ssl_key_file;
  // Time a client has to finish startup and authentication (PostgreSQL's
  // authentication_timeout, default 1 min; 1 s to 600 s): a client that has
  // not by then gets FATAL 08P01 "canceling authentication due to timeout"
  // and is closed.
  std::chrono::milliseconds authentication_timeout{60'000};
  // Connections still in startup or authentication, a budget apart from
  // max_connections: a session slot is taken only once a client has
  // authenticated, so clients that never finish cannot lock the server's
  // users out. When this budget is full, a new connection makes room by
  // closing the one that has waited longest (FATAL 53300).
  int max_startup_connections = 100;
  // A failed password check answers only after this pause (as PostgreSQL's
  // auth_delay), so guessing is slow: one guess per connection per second.
  std::chrono::milliseconds auth_failure_delay{1'000};
  // server_version as reported in ParameterStatus: drivers parse "15.x".
  std::string server_version = "15.0 (Forktail)";
};

}  // namespace forktail
