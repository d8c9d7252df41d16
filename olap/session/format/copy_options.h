// COPY's options (`WITH (FORMAT csv, DELIMITER '|', HEADER, ...)` and the
// pre-9.0 spellings the parser normalizes to the same list), checked as
// PostgreSQL 15's ProcessCopyOptions checks them, in its order, with its
// SQLSTATEs and messages. Both directions use them: COPY ... FROM
// (copy_reader.h, copy_binary.h) and COPY ... TO (copy_writer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forktail {

enum class CopyFormat : uint8_t { kText, kCsv, kBinary };
enum class CopyDirection : uint8_t { kFrom, kTo };

struct CopyOptions {
  CopyFormat format = CopyFormat::kText;
  // One byte. nullopt: the format's default ('\t' text, ',' csv).
  std::optional<char> delimiter;
  // nullopt: the format's default ("\N" text, "" csv).
  std::optional<std::string> null_string;
  // FROM: skip the first line; TO: write the column names first (PostgreSQL
  // allows it in both text formats since 15).
  bool header = false;
  // CSV only. escape nullopt: the same as quote.
  char quote = '"';
  std::optional<char> escape;
  // COPY TO in CSV: quote every non-NULL value of these columns (all of them
  // with force_quote_all), not only those that need it.
  bool force_quote_all = false;
  std::vector<std::string> force_quote;

  char EffectiveDelimiter() const;
  const std::string& EffectiveNull() const;
  char EffectiveEscape() const { return escape.value_or(quote); }
  // The checks ParseCopyOptions makes after reading the options, for options
  // built directly (tests, benchmarks): quote/escape only in CSV, a
  // delimiter that is not \r \n or backslash and not in the NULL string, ...
  void Validate(CopyDirection direction = CopyDirection::kFrom) const;
};

// One option of the statement's list: the name lower case, the value as the
// parser normalized it (nullopt when omitted: HEADER alone means true;
// FORCE_QUOTE's column list as "a,b" or "*"), and where it was written
// (1-based character position; 0: unknown) for the errors PostgreSQL points
// at an option with.
struct CopyOptionItem {
  std::string name;
  std::optional<std::string> value;
  int position = 0;
};

// Known options: format, delimiter, null, header, quote, escape, force_quote,
// encoding, freeze (a no-op: Forktail rows carry no transaction ids, so a
// committed row is always "frozen"); force_not_null, force_null and HEADER
// MATCH pass PostgreSQL's checks and are then refused with 0A000 (not
// implemented). ENCODING accepts PostgreSQL's names of UTF8 (and SQL_ASCII,
// which converts nothing); any other encoding PostgreSQL knows is 0A000, an
// unknown name 22023. Unknown options: 42601 `option "x" not recognized`.
CopyOptions ParseCopyOptions(const std::vector<CopyOptionItem>& items,
                             CopyDirection direction = CopyDirection::kFrom);

}  // namespace forktail
