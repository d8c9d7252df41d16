// The messages of the PostgreSQL v3 protocol (PostgreSQL docs, "Message
// Formats"), decoded into plain structs and encoded from them. Frontend
// messages have both directions so that tests and the fuzzer can build them;
// backend messages are only encoded here (tests read them with WireReader).
//
// Decode* take the message BODY (after the type byte and length) and throw
// ProtocolError on any malformed field: truncation, a string without NUL,
// a negative count, trailing bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/wire_format.h"

namespace forktail {

inline constexpr int32_t kProtocolVersion3 = 3 << 16;  // 196608
inline constexpr int32_t kCancelRequestCode = 80877102;
inline constexpr int32_t kSslRequestCode = 80877103;
inline constexpr int32_t kGssEncRequestCode = 80877104;
// A startup packet (length word included) is at most this long, as in PostgreSQL.
inline constexpr int32_t kMaxStartupPacketLength = 10000;
// Bind/Parse carry an int16 count; more than this is a malformed message.
inline constexpr int kMaxWireParameters = 65535;

struct StartupPacket {
  int32_t code = 0;  // kProtocolVersion3 (any 3.x), kSslRequestCode, ...
  std::vector<std::pair<std::string, std::string>> parameters;  // v3 startup only
  int32_t cancel_pid = 0;                                       // CancelRequest only
  int32_t cancel_key = 0;
};
// `body`: everything after the length word, the code included.
StartupPacket DecodeStartupPacket(std::string_view body);
void EncodeStartupPacket(std::string* out, const StartupPacket& packet);

struct ParseMessage {  // 'P'
  std::string statement;
  std::string query;
  std::vector<int32_t> parameter_oids;  // 0: unspecified
};
struct BindMessage {  // 'B'
  std::string portal;
  std::string statement;
  std::vector<int16_t> parameter_formats;              // 0 entries: text; 1: all; else one each
  std::vector<std::optional<std::string>> parameters;  // nullopt: NULL
  std::vector<int16_t> result_formats;
};
struct DescribeMessage {  // 'D' and Close 'C': kind 'S' (statement) or 'P' (portal)
  char kind = 'S';
  std::string name;
};
struct ExecuteMessage {  // 'E'
  std::string portal;
  int32_t max_rows = 0;  // 0: no limit
};
struct SaslInitialResponse {  // 'p' answering AuthenticationSASL
  std::string mechanism;
  std::optional<std::string> data;
};

ParseMessage DecodeParse(std::string_view body);
BindMessage DecodeBind(std::string_view body);
DescribeMessage DecodeDescribe(std::string_view body);  // also Close
ExecuteMessage DecodeExecute(std::string_view body);
std::string DecodeQuery(std::string_view body);  // 'Q'; also CopyFail 'f'
SaslInitialResponse DecodeSaslInitialResponse(std::string_view body);

void EncodeParse(std::string* out, const ParseMessage& m);
void EncodeBind(std::string* out, const BindMessage& m);
void EncodeDescribe(std::string* out, char type, const DescribeMessage& m);  // 'D' or 'C'
void EncodeExecute(std::string* out, const ExecuteMessage& m);
void EncodeQuery(std::string* out, std::string_view sql);
// A message whose body is raw bytes or empty: Sync 'S', Flush 'H', Terminate 'X',
// CopyData 'd', CopyDone 'c', SASLResponse 'p', ...
void EncodeRaw(std::string* out, char type, std::string_view body);

// ---- backend messages ----

struct FieldDescription {
  std::string name;
  int32_t type_oid = 0;
  int16_t type_length = -1;
  int32_t type_modifier = -1;
  int16_t format = 0;
};

struct ErrorFields {
  const char* severity = "ERROR";  // ERROR, FATAL, NOTICE, WARNING
  std::string sqlstate = "XX000";
  std::string message;
  int position = 0;    // 1-based character offset; 0: none
  std::string detail;  // 'D'; empty: not sent
  std::string hint;    // 'H'; empty: not sent
  std::string where;   // 'W' (psql's CONTEXT); empty: not sent
  // 's' (public when a table is named), 't', 'c', 'n': DbError::WithObject.
  std::string table, column, constraint;
};

// Error messages from the engine carry PostgreSQL's DETAIL and CONTEXT lines
// after the first line, as psql prints them ("...\nDETAIL:  Key (a)=(1) is
// duplicated."); this moves them into their own fields, so that clients that
// read fields (psycopg's diag.message_detail, JDBC) see them where
// PostgreSQL puts them.
void SplitMessageFields(ErrorFields* fields);

void EncodeAuthentication(std::string* out, int32_t code, std::string_view data = {});
void EncodeParameterStatus(std::string* out, std::string_view name, std::string_view value);
void EncodeBackendKeyData(std::string* out, int32_t pid, int32_t key);
void EncodeReadyForQuery(std::string* out, char status);
// NotificationResponse ('A'): a NOTIFY on a channel the session listens to.
void EncodeNotificationResponse(std::string* out, int32_t pid, std::string_view channel,
                                std::string_view payload);
void EncodeRowDescription(std::string* out, const std::vector<FieldDescription>& fields);
void EncodeDataRow(std::string* out, const std::vector<std::optional<std::string>>& values);
void EncodeCommandComplete(std::string* out, std::string_view tag);
void EncodeParameterDescription(std::string* out, const std::vector<int32_t>& oids);
void EncodeCopyInResponse(std::string* out, int column_count, bool binary = false);
void EncodeCopyOutResponse(std::string* out, int column_count, bool binary = false);
// 'E' ErrorResponse, or 'N' NoticeResponse when fields.severity is NOTICE/WARNING.
void EncodeErrorResponse(std::string* out, char type, const ErrorFields& fields);
// ParseComplete '1', BindComplete '2', CloseComplete '3', NoData 'n',
// PortalSuspended 's', EmptyQueryResponse 'I', CopyDone 'c'.
inline void EncodeEmpty(std::string* out, char type) { EncodeRaw(out, type, {}); }

}  // namespace forktail
