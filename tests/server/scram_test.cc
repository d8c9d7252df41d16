// SCRAM-SHA-256 against the RFC 7677 test vector, and a wrong password.
#include <gtest/gtest.h>

#include "server/scram.h"
#include "server/wire_format.h"

namespace forktail {
namespace {

// RFC 7677 section 3: user "user", password "pencil".
constexpr const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramVerifier Rfc7677Verifier(std::string_view password) {
  return MakeScramVerifier(password, *Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
}

TEST(Scram, Rfc7677Vector) {
  ScramVerifier v = Rfc7677Verifier("pencil");
  ScramExchange exchange(v, kServerNonce);
  EXPECT_EQ(exchange.HandleClientFirst(kClientFirst), kServerFirst);
  auto final_message = exchange.HandleClientFinal(kClientFinal);
  ASSERT_TRUE(final_message);
  EXPECT_EQ(*final_message, kServerFinal);
}

TEST(Scram, WrongPasswordFailsTheProof) {
  ScramVerifier v = Rfc7677Verifier("pencil2");
  ScramExchange exchange(v, kServerNonce);
  EXPECT_EQ(exchange.HandleClientFirst(kClientFirst), kServerFirst);
  EXPECT_FALSE(exchange.HandleClientFinal(kClientFinal));
}

TEST(Scram, MalformedMessages) {
  ScramVerifier v = Rfc7677Verifier("pencil");
  {
    ScramExchange e(v, kServerNonce);
    EXPECT_THROW(e.HandleClientFirst("p=tls-server-end-point,,n=user,r=x"), ProtocolError);
  }
  {
    ScramExchange e(v, kServerNonce);
    EXPECT_THROW(e.HandleClientFirst("n,,n=user"), ProtocolError);  // no nonce
  }
  {
    ScramExchange e(v, kServerNonce);
    EXPECT_THROW(e.HandleClientFinal(kClientFinal), ProtocolError);  // before client-first
  }
  {
    ScramExchange e(v, kServerNonce);
    e.HandleClientFirst(kClientFirst);
    EXPECT_THROW(
        e.HandleClientFinal("c=biws,r=wrongnonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="),
        ProtocolError);
  }
  {
    ScramExchange e(v, kServerNonce);
    e.HandleClientFirst(kClientFirst);
    EXPECT_THROW(e.HandleClientFinal(std::string(kClientFinal).substr(0, 100)), ProtocolError);
  }
}

TEST(Scram, Base64) {
  EXPECT_EQ(Base64Encode("n,,"), "biws");
  EXPECT_EQ(Base64Decode("biws"), "n,,");
  EXPECT_EQ(Base64Decode("YQ=="), "a");
  EXPECT_EQ(Base64Decode("YWI="), "ab");
  EXPECT_FALSE(Base64Decode("abc"));
  EXPECT_FALSE(Base64Decode("a*c="));
}

}  // namespace
}  // namespace forktail
