// The SQL parser (olap/parser): sql::Parse over any bytes, then the printer
// over every tree it accepts (ToString walks the whole tree, as the binder
// does). Parse's errors are DbErrors: 42601 syntax errors, the lexer's
// errors (22021 bad UTF-8, 42601 unterminated literals, ...), 54001 depth.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "olap/parser/ast.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& statement : forktail::sql::Parse(text)) {
      volatile size_t n = forktail::sql::ToString(*statement).size();
      (void)n;
    }
  } catch (const forktail::DbError& e) {
    forktail::fuzz::CheckDbError(e);
  }
  return 0;
}
