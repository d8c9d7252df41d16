// COPY's binary format (FORMAT binary), PostgreSQL's "PGCOPY" stream:
//
//   header   11 bytes signature "PGCOPY\n\377\r\n\0"
//            int32 flags (bit 16: OIDs included, refused; bits 17-31 are
//                  critical and must be 0; bits 0-15 are ignored)
//            int32 header extension length n >= 0, then n bytes (skipped)
//   tuple    int16 field count (the COPY's column count), then per field:
//            int32 length (-1: NULL), then that many bytes of the value's
//            binary form (storage/value/pg_binary.h)
//   trailer  int16 -1
//
// All integers are big-endian. COPY TO writes the header, one tuple per row
// and the trailer (copy_writer.h). COPY FROM reads them here, fed in chunks
// split anywhere, and hands out each complete tuple's raw fields (the
// CopyRowBuilder decodes them with the columns' receive functions). Every
// malformed sequence fails with PostgreSQL's error (22P04 unless noted):
//   COPY file signature not recognized                      (no CONTEXT)
//   invalid COPY file header (missing flags | WITH OIDS | missing length |
//     wrong length), unrecognized critical flags in COPY file header
//   row field count is 3, expected 4                        COPY t, line 1
//   invalid field size / unexpected EOF in COPY data        COPY t, line 1, column a
//   received copy data after EOF marker                     COPY t, line 2
// "Line" n is the n-th tuple (the trailer counts). Input that ends right
// after a tuple, without a trailer, or inside a tuple's field count, ends
// the data as in PostgreSQL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "olap/session/format/copy_reader.h"

namespace forktail {

inline constexpr std::string_view kCopyBinarySignature{"PGCOPY\n\377\r\n\0", 11};

class BinaryCopyParser {
 public:
  using RowFn = CopyParser::RowFn;
  // `columns` name the fields of every tuple, in order (their count is the
  // expected field count); `relation` names the table in CONTEXT lines.
  BinaryCopyParser(std::string relation, std::vector<std::string> columns, RowFn on_row);

  // Parses every complete tuple in `bytes` (plus what earlier calls left).
  // Throws DbError; the parser is then unusable.
  void Feed(std::string_view bytes);
  // End of input.
  void Finish();
  uint64_t bytes_seen() const { return bytes_seen_; }

 private:
  // Parses from buf_[pos_]; `at_end`: no more input will come. Returns false
  // when the buffer holds no complete header or tuple.
  bool Next(bool at_end);
  bool Header(bool at_end);
  bool Tuple(bool at_end);
  [[noreturn]] void Fail(const std::string& message, const std::string& context) const;
  std::string LineContext() const;

  const std::string relation_;
  const std::vector<std::string> columns_;
  const RowFn on_row_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t bytes_seen_ = 0;
  uint64_t line_ = 0;  // tuples started (the trailer included)
  bool header_done_ = false;
  bool ended_ = false;  // the trailer was read
  std::vector<CopyField> fields_;
};

}  // namespace forktail
