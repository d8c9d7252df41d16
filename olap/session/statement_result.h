// What one SQL statement returns to a client: its command tag, its result
// columns and rows, and notices (see sql_session.h).
#pragma once

#include <string>
#include <vector>

#include "storage/storage.h"

namespace forktail {

struct ResultColumn {
  std::string name;
  Type type;

  friend bool operator==(const ResultColumn&, const ResultColumn&) = default;
};

struct StatementResult {
  // "SELECT 3", "INSERT 0 5", "UPDATE 2", "DELETE 1", "CREATE TABLE", "BEGIN",
  // "COPY 100", "SET", "SHOW"... and "COPY_IN" for COPY ... FROM STDIN (the
  // caller then feeds CopyIn/CopyDone/CopyFail).
  std::string command_tag;
  std::vector<ResultColumn> columns;  // empty: the statement returns no rows
  std::vector<Row> rows;
  std::vector<std::string> notices;  // NoticeResponse messages
};

}  // namespace forktail
