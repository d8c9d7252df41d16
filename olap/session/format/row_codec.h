// The result stream of a SELECT run in a snapshot process: the batches the
// child's handler emits (BatchSink::Emit, one snapshot frame each) and the
// parent decodes into a StatementResult.
//
// A stream is: one Header batch, then Rows batches (each at most
// SqlFrontendOptions::result_batch_rows rows), then one Tag batch.
//
//   batch:   +---------+------------------------------------------------+
//            | kind u8 | body                                           |
//            +---------+------------------------------------------------+
//   Header (1): column count u16, then per column:
//            name length u16 | name bytes | type id u8 | precision u8 |
//            scale u8 | length u32
//   Rows (2): row count u32, then per row: a NULL bitmap of ceil(n/8) bytes
//            (bit c of byte c/8 set: column c is NULL), then each non-NULL
//            value by its column's type:
//              BOOLEAN                        u8 (0/1)
//              SMALLINT INTEGER BIGINT DATE   zigzag LEB128 varint (1..10 B)
//              TIMESTAMP DECIMAL(p<=18, unscaled)
//              DECIMAL(p 19..38)              16 bytes, __int128 unscaled
//              DOUBLE                         8 bytes, IEEE 754
//              CHAR VARCHAR TEXT              varint length | bytes
//   Tag (3): the command tag's bytes ("SELECT 42", "EXPLAIN").
// Integers are little-endian. Small integers (keys, dates near 1970, counts)
// take 1-3 bytes instead of 8, and a NULL costs one bit.
//
// The decoder checks every length against the bytes present and every type id
// against the known ones: a malformed batch throws DbError 08P01 and leaves
// nothing half-decoded in the result rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "olap/session/statement_result.h"
#include "storage/storage.h"

namespace forktail {

enum class ResultBatchKind : uint8_t { kHeader = 1, kRows = 2, kTag = 3 };

inline constexpr size_t kResultColumnFixedBytes = 2 + 1 + 1 + 1 + 4;
static_assert(kResultColumnFixedBytes == sizeof(uint16_t) + 3 * sizeof(uint8_t) + sizeof(uint32_t));

std::string EncodeResultHeader(const std::vector<ResultColumn>& columns);
// Values are written as their column's type (a value of another type is cast).
std::string EncodeResultRows(const std::vector<Type>& types, const Row* rows, size_t count);
std::string EncodeResultTag(std::string_view tag);

// The request a session sends a snapshot process for one query: the SQL text
// (exactly one statement, padded so positions match the client's string) and
// the parameter values with their types.
//
//   +------------+-----------+------------------+-------------------------+
//   | sql len u32| sql bytes | header batch len | header batch (types of  |
//   |            |           | u32              | $1..$n) | rows batch (1 row)|
//   +------------+-----------+------------------+-------------------------+
struct QueryRequest {
  std::string sql;
  std::string time_zone;  // the session's TimeZone (timestamptz text I/O)
  // The session the statement is bound for (current_user, current_database,
  // pg_backend_pid, current_setting and pg_settings): its user, database,
  // backend pid and settings as SHOW ALL gives them (name, value,
  // description).
  std::string user;
  std::string database;
  int32_t backend_pid = 0;
  std::vector<std::vector<std::string>> settings;
  std::vector<Type> parameter_types;
  std::vector<Value> parameters;  // one per type
};
std::string EncodeQueryRequest(const QueryRequest& request);
// Throws DbError 08P01 on malformed input.
QueryRequest DecodeQueryRequest(std::string_view bytes);

// A snapshot Error frame carries only SQLSTATE and message; an error's
// statement position travels as this suffix of the message (added in the
// child, stripped by the parent).
inline constexpr std::string_view kPositionMarker = "\x1f@position=";
inline constexpr std::string_view kHintMarker = "\x1f@hint=";
// The error with its position folded into the message / restored from it.
DbError WithPositionInMessage(const DbError& error);
DbError WithPositionFromMessage(const DbError& error);

// Accumulates a decoded stream.
class ResultDecoder {
 public:
  // Throws DbError 08P01 on a malformed batch or a batch out of order.
  void Add(std::string_view batch);
  bool has_header() const { return has_header_; }
  bool has_tag() const { return has_tag_; }
  // The decoded result (moves it out).
  StatementResult Take() { return std::move(result_); }
  const StatementResult& result() const { return result_; }

 private:
  bool has_header_ = false;
  bool has_tag_ = false;
  std::vector<Type> types_;
  StatementResult result_;
};

}  // namespace forktail
