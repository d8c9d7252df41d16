// ParseCopyOptions: PostgreSQL 15's ProcessCopyOptions (copy.c), check for
// check in its order, so that a statement with several problems reports the
// one PostgreSQL reports.
#include "olap/session/format/copy_options.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "storage/error.h"

namespace forktail {
namespace {

// The options as written, before defaults: strings where PostgreSQL checks
// their length after reading them all.
struct RawOptions {
  CopyFormat format = CopyFormat::kText;
  std::optional<std::string> delimiter;
  std::optional<std::string> null_string;
  bool header = false;
  bool header_match = false;
  std::optional<std::string> quote;
  std::optional<std::string> escape;
  bool force_quote_all = false;
  std::vector<std::string> force_quote;
  bool force_not_null = false;
  bool force_null = false;
};

std::string Lower(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

// defGetBoolean: true/false/on/off and their prefixes PostgreSQL accepts
// (parse_bool), or the integers 0 and 1.
std::optional<bool> ParseBool(const std::string& value) {
  const std::string v = Lower(value);
  if (v == "1") return true;
  if (v == "0") return false;
  auto prefix_of = [&](const char* word) {
    return !v.empty() && std::string_view(word).substr(0, v.size()) == v;
  };
  if (v.size() >= 1 && (prefix_of("true") || prefix_of("yes"))) return true;
  if (v.size() >= 1 && (prefix_of("false") || prefix_of("no"))) return false;
  if (v.size() >= 2 && prefix_of("on")) return true;
  if (v.size() >= 2 && prefix_of("off")) return false;
  return std::nullopt;
}

std::vector<std::string> SplitColumns(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// PostgreSQL's encoding names, as clean_encoding_name leaves them (lower
// case, letters and digits only): Forktail reads and writes UTF-8, so the
// names of UTF8 (and SQL_ASCII, which converts nothing) are accepted, the
// others refused as not supported.
bool IsUtf8Name(const std::string& clean) {
  return clean == "utf8" || clean == "unicode" || clean == "sqlascii";
}
bool IsOtherEncodingName(const std::string& clean) {
  static const char* const kNames[] = {
      "abc",         "alt",         "big5",        "euccn",        "eucjis2004",  "eucjp",
      "euckr",       "euctw",       "gb18030",     "gbk",          "iso88591",    "iso885910",
      "iso885913",   "iso885914",   "iso885915",   "iso885916",    "iso88592",    "iso88593",
      "iso88594",    "iso88595",    "iso88596",    "iso88597",     "iso88598",    "iso88599",
      "johab",       "koi8",        "koi8r",       "koi8u",        "latin1",      "latin10",
      "latin2",      "latin3",      "latin4",      "latin5",       "latin6",      "latin7",
      "latin8",      "latin9",      "mskanji",     "muleinternal", "shiftjis",    "shiftjis2004",
      "sjis",        "tcvn",        "tcvn5712",    "uhc",          "vscii",       "win",
      "win1250",     "win1251",     "win1252",     "win1253",      "win1254",     "win1255",
      "win1256",     "win1257",     "win1258",     "win866",       "win874",      "win932",
      "win936",      "win949",      "win950",      "windows1250",  "windows1251", "windows1252",
      "windows1253", "windows1254", "windows1255", "windows1256",  "windows1257", "windows1258",
      "windows866",  "windows874",  "windows932",  "windows936",   "windows949",  "windows950"};
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [&](const char* name) { return clean == name; });
}

void CheckEncoding(const std::string& name, int position) {
  std::string clean;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      clean.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (name.size() < 64 && IsUtf8Name(clean)) return;
  if (name.size() < 64 && IsOtherEncodingName(clean)) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "COPY with ENCODING '" + name +
                      "' is not supported: Forktail's COPY reads and writes UTF8 only",
                  position);
  }
  throw DbError(sqlstate::kInvalidParameterValue,
                "argument to option \"encoding\" must be a valid encoding name", position);
}

// The checks after the option list was read, in ProcessCopyOptions' order.
void CheckOptions(const RawOptions& o, CopyDirection direction) {
  const bool csv = o.format == CopyFormat::kCsv;
  const bool binary = o.format == CopyFormat::kBinary;
  const bool from = direction == CopyDirection::kFrom;
  auto fail = [](const char* state, const std::string& message) { throw DbError(state, message); };
  if (binary && o.delimiter)
    fail(sqlstate::kSyntaxError, "cannot specify DELIMITER in BINARY mode");
  if (binary && o.null_string) fail(sqlstate::kSyntaxError, "cannot specify NULL in BINARY mode");
  const std::string delimiter = o.delimiter.value_or(csv ? "," : "\t");
  const std::string null_string = o.null_string.value_or(csv ? "" : "\\N");
  const std::string quote = o.quote.value_or("\"");
  const std::string escape = o.escape.value_or(quote);
  if (delimiter.size() != 1) {
    fail(sqlstate::kFeatureNotSupported, "COPY delimiter must be a single one-byte character");
  }
  if (delimiter[0] == '\r' || delimiter[0] == '\n') {
    fail(sqlstate::kInvalidParameterValue, "COPY delimiter cannot be newline or carriage return");
  }
  if (null_string.find_first_of("\r\n") != std::string::npos) {
    fail(sqlstate::kInvalidParameterValue,
         "COPY null representation cannot use newline or carriage return");
  }
  if (!csv && std::strchr("\\.abcdefghijklmnopqrstuvwxyz0123456789", delimiter[0]) != nullptr &&
      delimiter[0] != '\0') {
    fail(sqlstate::kInvalidParameterValue, "COPY delimiter cannot be \"" + delimiter + "\"");
  }
  if (binary && o.header)
    fail(sqlstate::kFeatureNotSupported, "cannot specify HEADER in BINARY mode");
  if (o.header_match && !from) {
    fail(sqlstate::kFeatureNotSupported, "cannot use \"match\" with HEADER in COPY TO");
  }
  if (!csv && o.quote)
    fail(sqlstate::kFeatureNotSupported, "COPY quote available only in CSV mode");
  if (csv && quote.size() != 1) {
    fail(sqlstate::kFeatureNotSupported, "COPY quote must be a single one-byte character");
  }
  if (csv && delimiter[0] == quote[0]) {
    fail(sqlstate::kInvalidParameterValue, "COPY delimiter and quote must be different");
  }
  if (!csv && o.escape) {
    fail(sqlstate::kFeatureNotSupported, "COPY escape available only in CSV mode");
  }
  if (csv && escape.size() != 1) {
    fail(sqlstate::kFeatureNotSupported, "COPY escape must be a single one-byte character");
  }
  const bool force_quote = o.force_quote_all || !o.force_quote.empty();
  if (!csv && force_quote) {
    fail(sqlstate::kFeatureNotSupported, "COPY force quote available only in CSV mode");
  }
  if (force_quote && from) {
    fail(sqlstate::kFeatureNotSupported, "COPY force quote only available using COPY TO");
  }
  if (!csv && o.force_not_null) {
    fail(sqlstate::kFeatureNotSupported, "COPY force not null available only in CSV mode");
  }
  if (o.force_not_null && !from) {
    fail(sqlstate::kFeatureNotSupported, "COPY force not null only available using COPY FROM");
  }
  if (!csv && o.force_null) {
    fail(sqlstate::kFeatureNotSupported, "COPY force null available only in CSV mode");
  }
  if (o.force_null && !from) {
    fail(sqlstate::kFeatureNotSupported, "COPY force null only available using COPY FROM");
  }
  if (null_string.find(delimiter[0]) != std::string::npos) {
    fail(sqlstate::kInvalidParameterValue,
         "COPY delimiter must not appear in the NULL specification");
  }
  if (csv && null_string.find(quote[0]) != std::string::npos) {
    fail(sqlstate::kInvalidParameterValue,
         "CSV quote character must not appear in the NULL specification");
  }
  // What PostgreSQL has and Forktail does not, once PostgreSQL would accept it.
  if (o.force_not_null)
    fail(sqlstate::kFeatureNotSupported, "COPY FORCE_NOT_NULL is not supported");
  if (o.force_null) fail(sqlstate::kFeatureNotSupported, "COPY FORCE_NULL is not supported");
  if (o.header_match)
    fail(sqlstate::kFeatureNotSupported, "COPY ... HEADER MATCH is not supported");
}

}  // namespace

char CopyOptions::EffectiveDelimiter() const {
  if (delimiter) return *delimiter;
  return format == CopyFormat::kCsv ? ',' : '\t';
}

const std::string& CopyOptions::EffectiveNull() const {
  static const std::string kTextNull = "\\N";
  static const std::string kCsvNull;
  if (null_string) return *null_string;
  return format == CopyFormat::kCsv ? kCsvNull : kTextNull;
}

void CopyOptions::Validate(CopyDirection direction) const {
  RawOptions raw;
  raw.format = format;
  if (delimiter) raw.delimiter = std::string(1, *delimiter);
  raw.null_string = null_string;
  raw.header = header;
  // A quote other than the default is one that was given.
  if (format != CopyFormat::kCsv && quote != '"') raw.quote = std::string(1, quote);
  if (format == CopyFormat::kCsv) raw.quote = std::string(1, quote);
  if (escape) raw.escape = std::string(1, *escape);
  raw.force_quote_all = force_quote_all;
  raw.force_quote = force_quote;
  CheckOptions(raw, direction);
}

CopyOptions ParseCopyOptions(const std::vector<CopyOptionItem>& items, CopyDirection direction) {
  RawOptions raw;
  bool format_seen = false;
  bool freeze_seen = false;
  bool header_seen = false;
  bool encoding_seen = false;
  bool force_not_null_seen = false;
  bool force_null_seen = false;
  for (const CopyOptionItem& item : items) {
    const std::string& name = item.name;
    auto conflict = [&](bool seen) {
      if (seen)
        throw DbError(sqlstate::kSyntaxError, "conflicting or redundant options", item.position);
    };
    auto value = [&]() -> const std::string& {
      if (!item.value) throw DbError(sqlstate::kSyntaxError, name + " requires a parameter");
      return *item.value;
    };
    if (name == "format") {
      conflict(format_seen);
      format_seen = true;
      const std::string& f = value();
      if (f == "text") {
        raw.format = CopyFormat::kText;
      } else if (f == "csv") {
        raw.format = CopyFormat::kCsv;
      } else if (f == "binary") {
        raw.format = CopyFormat::kBinary;
      } else {
        throw DbError(sqlstate::kInvalidParameterValue, "COPY format \"" + f + "\" not recognized",
                      item.position);
      }
    } else if (name == "freeze") {
      conflict(freeze_seen);
      freeze_seen = true;
      // Accepted and a no-op (see copy_options.h); PostgreSQL's precondition
      // (table created or truncated in the same transaction, else 55000) is
      // not enforced.
      if (item.value && !ParseBool(*item.value)) {
        throw DbError(sqlstate::kSyntaxError, "freeze requires a Boolean value");
      }
    } else if (name == "delimiter") {
      conflict(raw.delimiter.has_value());
      raw.delimiter = value();
    } else if (name == "null") {
      conflict(raw.null_string.has_value());
      raw.null_string = value();
    } else if (name == "header") {
      conflict(header_seen);
      header_seen = true;
      if (!item.value) {
        raw.header = true;
      } else if (Lower(*item.value) == "match") {
        raw.header = true;
        raw.header_match = true;
      } else if (std::optional<bool> b = ParseBool(*item.value)) {
        raw.header = *b;
      } else {
        throw DbError(sqlstate::kSyntaxError, "header requires a Boolean value or \"match\"");
      }
    } else if (name == "quote") {
      conflict(raw.quote.has_value());
      raw.quote = value();
    } else if (name == "escape") {
      conflict(raw.escape.has_value());
      raw.escape = value();
    } else if (name == "force_quote") {
      conflict(raw.force_quote_all || !raw.force_quote.empty());
      if (value() == "*") {
        raw.force_quote_all = true;
      } else {
        raw.force_quote = SplitColumns(value());
      }
    } else if (name == "force_not_null") {
      conflict(force_not_null_seen);
      force_not_null_seen = true;
      raw.force_not_null = !value().empty();
    } else if (name == "force_null") {
      conflict(force_null_seen);
      force_null_seen = true;
      raw.force_null = !value().empty();
    } else if (name == "encoding") {
      conflict(encoding_seen);
      encoding_seen = true;
      CheckEncoding(value(), item.position);
    } else {
      throw DbError(sqlstate::kSyntaxError, "option \"" + name + "\" not recognized",
                    item.position);
    }
  }
  CheckOptions(raw, direction);
  CopyOptions options;
  options.format = raw.format;
  if (raw.delimiter) options.delimiter = (*raw.delimiter)[0];
  options.null_string = raw.null_string;
  options.header = raw.header;
  if (raw.quote) options.quote = (*raw.quote)[0];
  if (raw.escape) options.escape = (*raw.escape)[0];
  options.force_quote_all = raw.force_quote_all;
  options.force_quote = raw.force_quote;
  return options;
}

}  // namespace forktail
