// TLS for the wire protocol (PostgreSQL's SSLRequest): one OpenSSL server
// context, loaded from a PEM certificate (chain) and private key when the
// server starts, shared read-only by every connection. Without one, the server
// answers SSLRequest with 'N' and clients that require TLS give up.
#pragma once

#include <memory>
#include <string>

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace forktail {

class TlsContext {
 public:
  // Throws std::runtime_error (with OpenSSL's reason) when either file cannot
  // be read or the key does not match the certificate.
  static std::unique_ptr<TlsContext> Load(const std::string& cert_file,
                                          const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  ssl_ctx_st* native() const { return ctx_; }

 private:
  explicit TlsContext(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* ctx_;
};

}  // namespace forktail
