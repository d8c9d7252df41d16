// The byte-level codec of the PostgreSQL v3 protocol: big-endian integers and
// NUL-terminated strings inside length-prefixed messages.
//
//   regular message:  +------+-------------+------------------------+
//                     | type | int32 len   | body (len - 4 bytes)   |
//                     | 1 B  | incl. itself|                        |
//                     +------+-------------+------------------------+
//   startup packet:   | int32 len | int32 code (196608 = v3.0, 80877103 = SSL, ...) | body |
//
// WireReader never reads past the body it was given: every read checks the
// bytes that remain and throws ProtocolError (08P01) when the message is
// truncated or a string has no terminating NUL. The connection treats a
// ProtocolError as fatal (the byte stream can no longer be trusted), unlike a
// DbError from a statement, which only fails that statement.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/error.h"

namespace forktail {

// A malformed frontend message: the connection answers FATAL 08P01 and closes.
class ProtocolError : public DbError {
 public:
  explicit ProtocolError(std::string message)
      : DbError(sqlstate::kProtocolViolation, std::move(message)) {}
};

// Reads the fields of one message body. All reads are bounds-checked.
class WireReader {
 public:
  explicit WireReader(std::string_view body) : data_(body) {}

  uint8_t ReadByte();
  int16_t ReadInt16();
  int32_t ReadInt32();
  // A NUL-terminated string (the NUL is consumed, not returned).
  std::string_view ReadString();
  std::string_view ReadBytes(size_t n);
  // Throws unless every byte was consumed (PostgreSQL's pq_getmsgend).
  void ExpectEnd() const;

  size_t remaining() const { return data_.size() - pos_; }
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  void Need(size_t n) const;

  std::string_view data_;
  size_t pos_ = 0;
};

// Appends messages to an output buffer. Begin() writes the type byte and a
// length placeholder that End() fills in, so a message is written in one pass.
class WireWriter {
 public:
  explicit WireWriter(std::string* out) : out_(out) {}

  void Begin(char type);
  // A startup-style packet: no type byte (frontend StartupMessage, SSLRequest, ...).
  void BeginUntyped();
  void End();

  void Byte(uint8_t b) { out_->push_back(static_cast<char>(b)); }
  void Int16(int16_t v);
  void Int32(int32_t v);
  void Int64(int64_t v);
  void String(std::string_view s);  // with the NUL terminator
  void Bytes(std::string_view s) { out_->append(s); }

 private:
  std::string* out_;
  size_t start_ = std::string::npos;  // offset of the length field of the open message
};

// Big-endian helpers for the binary value formats.
inline void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint64_t GetBigEndian(std::string_view in) {
  uint64_t v = 0;
  for (unsigned char c : in) v = (v << 8) | c;
  return v;
}

}  // namespace forktail
