#include "server/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstring>

#include "server/wire_format.h"

namespace forktail {
namespace {

Sha256Digest Hmac(const Sha256Digest& key, std::string_view data) {
  Sha256Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
  return out;
}

Sha256Digest Sha256(const Sha256Digest& in) {
  Sha256Digest out{};
  SHA256(in.data(), in.size(), out.data());
  return out;
}

std::string_view AsBytes(const Sha256Digest& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

// The value of attribute `name` ("r", "s", ...) of a comma-separated SCRAM message.
std::optional<std::string_view> Attribute(std::string_view message, char name) {
  size_t pos = 0;
  while (pos <= message.size()) {
    size_t comma = message.find(',', pos);
    std::string_view part =
        message.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return part.substr(2);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return std::nullopt;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(n);
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * text.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=')
    pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  out.resize(n - pad);
  return out;
}

std::string RandomScramNonce() {
  unsigned char raw[18];
  if (RAND_bytes(raw, sizeof raw) != 1) abort();
  return Base64Encode({reinterpret_cast<const char*>(raw), sizeof raw});
}

ScramVerifier MakeScramVerifier(std::string_view password, std::string salt, int iterations) {
  ScramVerifier v;
  if (salt.empty()) {
    salt.resize(16);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), 16) != 1) abort();
  }
  v.salt = std::move(salt);
  v.iterations = iterations;
  Sha256Digest salted{};
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(v.salt.data()),
                    static_cast<int>(v.salt.size()), iterations, EVP_sha256(),
                    static_cast<int>(salted.size()), salted.data());
  v.stored_key = Sha256(Hmac(salted, "Client Key"));
  v.server_key = Hmac(salted, "Server Key");
  return v;
}

ScramExchange::ScramExchange(const ScramVerifier& verifier, std::string server_nonce)
    : verifier_(verifier), server_nonce_(std::move(server_nonce)) {}

std::string ScramExchange::HandleClientFirst(std::string_view client_first) {
  // gs2-header: "n,," / "y,," (optionally with an a=authzid); "p=" asks for
  // channel binding, which we do not offer.
  if (client_first.size() < 3 || (client_first[0] != 'n' && client_first[0] != 'y') ||
      client_first[1] != ',') {
    throw ProtocolError("malformed SCRAM message");
  }
  size_t second_comma = client_first.find(',', 2);
  if (second_comma == std::string_view::npos) throw ProtocolError("malformed SCRAM message");
  gs2_header_ = client_first.substr(0, second_comma + 1);
  client_first_bare_ = client_first.substr(second_comma + 1);
  auto client_nonce = Attribute(client_first_bare_, 'r');
  if (!client_nonce || client_nonce->empty()) throw ProtocolError("malformed SCRAM message");
  nonce_ = std::string(*client_nonce) + server_nonce_;
  server_first_ = "r=" + nonce_ + ",s=" + Base64Encode(verifier_.salt) +
                  ",i=" + std::to_string(verifier_.iterations);
  return server_first_;
}

std::optional<std::string> ScramExchange::HandleClientFinal(std::string_view client_final) {
  size_t proof_at = client_final.rfind(",p=");
  if (server_first_.empty() || proof_at == std::string_view::npos) {
    throw ProtocolError("malformed SCRAM message");
  }
  std::string_view without_proof = client_final.substr(0, proof_at);
  auto channel = Attribute(without_proof, 'c');
  auto nonce = Attribute(without_proof, 'r');
  if (!channel || *channel != Base64Encode(gs2_header_)) {
    throw ProtocolError("SCRAM channel binding check failed");
  }
  if (!nonce || *nonce != nonce_) throw ProtocolError("SCRAM nonce does not match");
  auto proof = Base64Decode(client_final.substr(proof_at + 3));
  if (!proof || proof->size() != 32) throw ProtocolError("malformed SCRAM message");

  std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  Sha256Digest signature = Hmac(verifier_.stored_key, auth_message);
  Sha256Digest client_key{};
  for (size_t i = 0; i < client_key.size(); ++i) {
    client_key[i] = static_cast<uint8_t>((*proof)[i]) ^ signature[i];
  }
  Sha256Digest check = Sha256(client_key);
  if (CRYPTO_memcmp(check.data(), verifier_.stored_key.data(), check.size()) != 0) {
    return std::nullopt;
  }
  return "v=" + Base64Encode(AsBytes(Hmac(verifier_.server_key, auth_message)));
}

}  // namespace forktail
