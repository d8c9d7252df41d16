// PostgreSQL's binary send/receive formats of Forktail's types: what a Bind
// parameter or a result column with format code 1 carries, and every field
// of binary COPY (FORMAT binary). The wire protocol (server/pg_types.h) and
// COPY (olap/session/format/) both use them; the formats are PostgreSQL's
// typsend/typreceive functions':
//
//   Forktail      PG type     binary form
//   BOOLEAN       bool        1 byte, 0 = false (receive: any non-zero byte is true)
//   SMALLINT      int2        int16 big-endian
//   INTEGER       int4        int32 big-endian
//   BIGINT        int8        int64 big-endian
//   DOUBLE        float8      IEEE 754 binary64 big-endian
//   DECIMAL(p,s)  numeric     uint16 ndigits | int16 weight | uint16 sign | uint16 dscale |
//                             ndigits x int16 base-10000 digit
//   CHAR/VARCHAR/ text, ...   the bytes (UTF-8; CHAR(n) padded)
//     TEXT
//   DATE          date        int32 days since 2000-01-01
//   TIMESTAMP     timestamp   int64 microseconds since 2000-01-01
//   TIMESTAMPTZ   timestamptz int64 microseconds since 2000-01-01 00:00 UTC
//
//   numeric: sign 0x0000 positive, 0x4000 negative, 0xC000 NaN, 0xD000 / 0xF000
//   +/-Infinity; the value is sum(digit[i] * 10000^(weight - i)), shown with
//   dscale fractional digits (dscale < 0x4000).
#pragma once

#include <string>
#include <string_view>

#include "storage/value/value.h"

namespace forktail {

// The binary form of `value` (not NULL).
std::string PgBinarySend(const Value& value);

// Reads `bytes` as the binary form of a value of `type`, as PostgreSQL's
// receive function of that type does, and applies `type`'s length, precision
// and scale as an assignment does (CHAR padding, 22001 for a VARCHAR(n) value
// too long, numeric rounding and 22003 overflow). Throws DbError with
// PostgreSQL's SQLSTATE and message:
//   08P01 insufficient data left in message    fewer bytes than the form needs
//   22P03 incorrect binary data format         bytes left over after the value
//   22P03 invalid sign / scale / digit in external "numeric" value
//   22021 invalid byte sequence for encoding "UTF8": 0x..   (a string; NUL too)
//   22008 date out of range / timestamp out of range   (outside years 1..9999)
Value PgBinaryReceive(std::string_view bytes, const Type& type);

// numeric's binary form as decimal text ("-12.50", "NaN", "Infinity"), with
// PgBinaryReceive's errors for a malformed form.
std::string PgNumericBinaryToText(std::string_view bytes);

// A DECIMAL's value (an int64 unscaled value widens) as numeric's binary form.
std::string DecimalToNumericBinary(__int128 unscaled, int scale);

}  // namespace forktail
