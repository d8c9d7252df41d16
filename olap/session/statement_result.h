// What one SQL statement returns to a client: its command tag, its result
// columns and rows, and notices (see sql_session.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "storage/storage.h"

namespace forktail {

struct ResultColumn {
  std::string name;
  Type type;

  friend bool operator==(const ResultColumn&, const ResultColumn&) = default;
};

// COPY ... TO STDOUT: what the server sends in CopyOutResponse and the
// CopyData messages (format/copy_writer.h makes it).
struct CopyOutData {
  bool binary = false;  // FORMAT binary: the overall format and every column's
  int columns = 0;
  std::string data;                  // every CopyData message's bytes, back to back
  std::vector<size_t> message_ends;  // where each message ends in `data`
};

struct StatementResult {
  // "SELECT 3", "INSERT 0 5", "UPDATE 2", "DELETE 1", "CREATE TABLE", "BEGIN",
  // "COPY 100", "SET", "SHOW", "FETCH 2"... and "COPY_IN" for COPY ... FROM
  // STDIN (the caller then feeds CopyIn/CopyDone/CopyFail).
  std::string command_tag;
  std::vector<ResultColumn> columns;  // empty: the statement returns no rows
  std::vector<Row> rows;
  // NoticeResponse messages (severity NOTICE); one that begins with
  // "WARNING XXXXX:  " is a WARNING with SQLSTATE XXXXX.
  std::vector<std::string> notices;
  // FETCH from a BINARY cursor: in the simple query protocol the rows go out
  // in binary format (the extended protocol's Bind chooses instead). With
  // "COPY_IN": the COPY's data is FORMAT binary.
  bool binary_rows = false;
  // COPY ... TO STDOUT: the data, sent between CopyOutResponse and CopyDone
  // before command_tag ("COPY n"); rows and columns are empty.
  std::optional<CopyOutData> copy_out;
};

}  // namespace forktail
