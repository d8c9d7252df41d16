// The wire protocol's frontend messages (server/messages.h): the first byte
// is the message type as a client sends it, the rest the message body (what
// follows the length word). Types without a decoder of their own feed the
// startup packet decoder ('\0') or a SCRAM exchange ('s': client-first, a
// NUL, client-final). Malformed bodies are ProtocolErrors (08P01), SCRAM
// messages also 28P01/28000. A body that decodes must encode back to the
// same bytes: the decoders read exactly the fields the encoders write.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_target.h"
#include "server/messages.h"
#include "server/scram.h"

namespace forktail {
namespace {

// A successful decode re-encoded must give the body back (type byte and
// length word stripped from the encoder's output).
void ExpectSameBody(std::string_view body, const std::string& encoded) {
  if (encoded.size() < 5 || std::string_view(encoded).substr(5) != body) {
    std::fprintf(stderr, "decoded message does not encode back to its body\n");
    std::abort();
  }
}

void Scram(std::string_view bytes) {
  // One iteration: the exchange's parsing is under test, not PBKDF2's cost.
  static const ScramVerifier verifier = MakeScramVerifier("pencil", "salt-bytes", 1);
  size_t nul = bytes.find('\0');
  ScramExchange exchange(verifier, "snonce");
  exchange.HandleClientFirst(bytes.substr(0, nul));
  if (nul != std::string_view::npos) (void)exchange.HandleClientFinal(bytes.substr(nul + 1));
}

void Decode(char type, std::string_view body) {
  std::string out;
  switch (type) {
    case 'P':
      EncodeParse(&out, DecodeParse(body));
      return ExpectSameBody(body, out);
    case 'B':
      EncodeBind(&out, DecodeBind(body));
      return ExpectSameBody(body, out);
    case 'D':
    case 'C':
      EncodeDescribe(&out, type, DecodeDescribe(body));
      return ExpectSameBody(body, out);
    case 'E':
      EncodeExecute(&out, DecodeExecute(body));
      return ExpectSameBody(body, out);
    case 'Q':
    case 'f':
      EncodeQuery(&out, DecodeQuery(body));
      return ExpectSameBody(body, out);
    case 'p':
      (void)DecodeSaslInitialResponse(body);
      return;
    case 's':
      return Scram(body);
    default:
      (void)DecodeStartupPacket(body);
      return;
  }
}

}  // namespace
}  // namespace forktail

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  forktail::fuzz::Input in = forktail::fuzz::SplitControl(data, size);
  try {
    forktail::Decode(static_cast<char>(in.control), in.bytes);
  } catch (const forktail::DbError& e) {
    forktail::fuzz::CheckDbError(e);
  }
  return 0;
}
