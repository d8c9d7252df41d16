// SQL keywords and their PostgreSQL categories. The lexer marks every unquoted
// identifier with its category; the parser decides from it whether the word
// may serve as a column name, function name, type name or bare alias, as
// PostgreSQL's grammar does (ColId, type_function_name, ColLabel,
// BareColLabel).
#pragma once

#include <cstdint>
#include <string_view>

namespace forktail::sql {

enum class KeywordCategory : uint8_t {
  kNone,        // not a keyword: a plain identifier
  kUnreserved,  // usable as any name
  kColName,     // usable as a column/table name, not as a function or type name
  kTypeFunc,    // usable as a function or type name, not as a column name
  kReserved,    // only usable as a label (after AS or '.')
};

struct KeywordInfo {
  KeywordCategory category = KeywordCategory::kNone;
  bool bare_label = true;  // may be an alias without AS
};

// `word` must already be lower case.
KeywordInfo LookupKeyword(std::string_view word);

}  // namespace forktail::sql
