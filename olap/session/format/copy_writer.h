// COPY ... TO: rows in PostgreSQL's text, CSV and binary formats, byte for
// byte as PostgreSQL 15's COPY TO writes them (copyto.c):
//
//   text    each value's text output, with backslash, the delimiter and the
//           control characters \b \f \n \r \t \v written as \\, \<delimiter>,
//           \b ...; another control character equal to the delimiter is
//           backslashed too; NULL is the NULL string as given (default \N);
//           HEADER writes the column names first, escaped the same way.
//   csv     a value is quoted when it contains the delimiter, the quote, \n or
//           \r, equals the NULL string, is \. alone in a one-column COPY, or
//           its column is in FORCE_QUOTE; inside quotes the quote and the
//           escape character are preceded by the escape character. NULL is the
//           NULL string unquoted (default: empty).
//   binary  copy_binary.h's stream: header, one tuple per row, trailer.
//
// Every row ends with "\n" in the text formats. The output is split into
// the CopyData messages PostgreSQL sends for COPY TO STDOUT: the header line
// alone, then one message per row (in binary the header goes with the first
// row), then the binary trailer alone.
#pragma once

#include <string>
#include <vector>

#include "olap/session/format/copy_options.h"
#include "olap/session/statement_result.h"
#include "storage/storage.h"

namespace forktail {

class CopyWriter {
 public:
  // `names`: the copied columns' names (HEADER); `force_quote`: per column,
  // whether FORCE_QUOTE names it (empty: none; CSV only).
  CopyWriter(const CopyOptions& options, std::vector<std::string> names,
             std::vector<bool> force_quote = {});

  // Appends each piece to `out` and ends a CopyData message after it.
  void Begin(CopyOutData* out) const;
  void Append(const Row& row, CopyOutData* out) const;
  void End(CopyOutData* out) const;

 private:
  void Text(std::string_view value, std::string* out) const;
  void Csv(std::string_view value, bool force_quote, std::string* out) const;

  const CopyOptions options_;
  const std::vector<std::string> names_;
  std::vector<bool> force_quote_;
  const char delimiter_;
  const std::string null_;
};

// The whole COPY TO output of `rows`.
CopyOutData FormatCopyOut(const CopyOptions& options, const std::vector<std::string>& names,
                          const std::vector<bool>& force_quote, const std::vector<Row>& rows);

}  // namespace forktail
