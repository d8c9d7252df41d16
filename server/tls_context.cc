#include "server/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <stdexcept>

namespace forktail {
namespace {

[[noreturn]] void ThrowOpenSsl(const std::string& what) {
  char reason[256] = "unknown error";
  unsigned long code = ERR_get_error();
  if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
  ERR_clear_error();
  throw std::runtime_error(what + ": " + reason);
}

}  // namespace

std::unique_ptr<TlsContext> TlsContext::Load(const std::string& cert_file,
                                             const std::string& key_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) ThrowOpenSsl("could not create the TLS context");
  std::unique_ptr<TlsContext> context(new TlsContext(ctx));
  // As PostgreSQL 15's default ssl_min_protocol_version.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    ThrowOpenSsl("could not load server certificate file \"" + cert_file + "\"");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    ThrowOpenSsl("could not load private key file \"" + key_file + "\"");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    ThrowOpenSsl("private key file \"" + key_file + "\" does not match the certificate");
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace forktail
