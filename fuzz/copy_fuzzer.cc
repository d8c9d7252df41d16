// COPY ... FROM's input parsers (olap/session/format/copy_reader.h: text and
// CSV; copy_binary.h: FORMAT binary). Byte 0 picks the format and options:
//   bits 0-1  0 text, 1 csv, 2 binary, 3 csv with HEADER
//   bit 2     DELIMITER '|'          bit 3  csv: QUOTE '\'' ESCAPE '\\'
//   bit 4     NULL 'NULL'            bits 5-7  chunk size: 1,2,3,7,64,4096,...
// (binary: bits 2-4 give the column count - 1.) The rest is the COPY data.
// Bad data is a DbError (22P04, 22021, ...). COPY FROM STDIN arrives in
// CopyData messages split anywhere, so the same bytes fed whole and fed in
// chunks must give the same rows and the same error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "olap/session/format/copy_binary.h"
#include "olap/session/format/copy_reader.h"

namespace forktail {
namespace {

struct Outcome {
  std::vector<std::string> rows;  // fields, NULLs and line numbers, rendered
  std::string error;              // "sqlstate message", or empty
  bool operator==(const Outcome&) const = default;
};

void Record(const CopyRow& row, Outcome* out) {
  std::string r = std::to_string(row.line) + ":";
  for (const CopyField& f : row.fields) {
    r += f.is_null ? std::string("N") : "[" + std::string(f.text) + "]";
  }
  out->rows.push_back(std::move(r));
}

Outcome Run(uint8_t control, std::string_view bytes, size_t chunk) {
  Outcome out;
  auto on_row = [&out](const CopyRow& row) { Record(row, &out); };
  auto feed = [&](auto& parser) {
    for (size_t at = 0; at < bytes.size(); at += chunk) parser.Feed(bytes.substr(at, chunk));
    parser.Finish();
  };
  try {
    if ((control & 3) == 2) {
      std::vector<std::string> columns;
      for (int i = 0; i <= ((control >> 2) & 7); ++i) columns.push_back("c" + std::to_string(i));
      BinaryCopyParser parser("t", columns, on_row);
      feed(parser);
    } else {
      CopyOptions options;
      options.format = (control & 1) ? CopyFormat::kCsv : CopyFormat::kText;
      options.header = (control & 3) == 3;
      if (control & 4) options.delimiter = '|';
      if ((control & 8) && options.format == CopyFormat::kCsv) {
        options.quote = '\'';
        options.escape = '\\';
      }
      if (control & 16) options.null_string = "NULL";
      options.Validate();
      CopyParser parser(options, "t", on_row);
      feed(parser);
    }
  } catch (const DbError& e) {
    fuzz::CheckDbError(e);
    out.error = std::string(e.sqlstate()) + " " + e.what();
  }
  return out;
}

}  // namespace
}  // namespace forktail

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr size_t kChunks[8] = {1, 2, 3, 7, 64, 4096, 5, 13};
  forktail::fuzz::Input in = forktail::fuzz::SplitControl(data, size);
  size_t whole = in.bytes.empty() ? 1 : in.bytes.size();
  forktail::Outcome at_once = forktail::Run(in.control, in.bytes, whole);
  forktail::Outcome chunked = forktail::Run(in.control, in.bytes, kChunks[in.control >> 5]);
  if (!(at_once == chunked)) {
    std::fprintf(stderr, "COPY data fed in chunks of %zu parses differently:\n",
                 kChunks[in.control >> 5]);
    for (const auto* o : {&at_once, &chunked}) {
      std::fprintf(stderr, "  %zu rows, error: %s\n", o->rows.size(), o->error.c_str());
    }
    std::abort();
  }
  return 0;
}
