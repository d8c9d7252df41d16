// SCRAM-SHA-256 (RFC 5802, RFC 7677), server side, as PostgreSQL speaks it in
// AuthenticationSASL / SASLContinue / SASLFinal (no channel binding).
//
//   client-first  "n,,n=user,r=<cnonce>"
//   server-first  "r=<cnonce><snonce>,s=<base64 salt>,i=<iterations>"
//   client-final  "c=biws,r=<cnonce><snonce>,p=<base64 ClientProof>"
//   server-final  "v=<base64 ServerSignature>"
//
// SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, i); ClientKey =
// HMAC(SaltedPassword, "Client Key"); StoredKey = SHA-256(ClientKey);
// ServerKey = HMAC(SaltedPassword, "Server Key"). The server keeps only
// StoredKey and ServerKey (ScramVerifier), recovers ClientKey from the proof
// (proof XOR HMAC(StoredKey, AuthMessage)) and checks its hash.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace forktail {

using Sha256Digest = std::array<uint8_t, 32>;

struct ScramVerifier {
  std::string salt;  // raw bytes
  int iterations = 4096;
  Sha256Digest stored_key{};
  Sha256Digest server_key{};
};

// `salt` empty: 16 random bytes.
ScramVerifier MakeScramVerifier(std::string_view password, std::string salt = {},
                                int iterations = 4096);

std::string Base64Encode(std::string_view bytes);
// nullopt on malformed input.
std::optional<std::string> Base64Decode(std::string_view text);
// 18 random bytes, base64 (printable, no comma).
std::string RandomScramNonce();

// One authentication exchange. Malformed client messages throw ProtocolError.
class ScramExchange {
 public:
  ScramExchange(const ScramVerifier& verifier, std::string server_nonce = RandomScramNonce());

  // Returns server-first.
  std::string HandleClientFirst(std::string_view client_first);
  // Returns server-final on a correct proof, nullopt on a wrong one.
  std::optional<std::string> HandleClientFinal(std::string_view client_final);

 private:
  const ScramVerifier& verifier_;
  std::string server_nonce_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;
};

}  // namespace forktail
