// Forktail types as PostgreSQL types on the wire: OIDs, lengths, modifiers,
// and the text and binary formats of values.
//
//   Forktail      PG type (OID)      typlen  typmod            binary format
//   BOOLEAN       bool (16)          1       -1                1 byte 0/1
//   SMALLINT      int2 (21)          2       -1                int16 BE
//   INTEGER       int4 (23)          4       -1                int32 BE
//   BIGINT        int8 (20)          8       -1                int64 BE
//   DOUBLE        float8 (701)       8       -1                IEEE 754 BE
//   DECIMAL(p,s)  numeric (1700)     -1      ((p<<16)|s)+4     base-10000 digits (below)
//   CHAR(n)       bpchar (1042)      -1      n+4               bytes
//   VARCHAR(n)    varchar (1043)     -1      n+4 (or -1)       bytes
//   TEXT          text (25)          -1      -1                bytes
//   DATE          date (1082)        4       -1                int32 days since 2000-01-01
//   TIMESTAMP     timestamp (1114)   8       -1                int64 us since 2000-01-01
//   TIMESTAMPTZ   timestamptz (1184) 8       -1                int64 us since 2000-01-01 UTC
//
//   numeric binary: int16 ndigits | int16 weight | uint16 sign (0, 0x4000 neg,
//   0xC000 NaN) | int16 dscale | ndigits x int16 digit (0..9999); the value is
//   sum(digit[i] * 10000^(weight - i)), shown with dscale fractional digits.
//
// Incoming parameters also accept float4 (700, as DOUBLE), name (19), "char"
// (18) and unknown (705) as text. Text values of timestamptz go out and come
// in in the thread's current zone (datetime::CurrentTimeZone), which the
// connection sets to its session's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/value/pg_binary.h"
#include "storage/value/pg_type_oid.h"
#include "storage/value/value.h"

namespace forktail {

// Text format (format code 0): PostgreSQL's output functions. Not for NULL.
std::string EncodeTextValue(const Value& value);
// Binary format (format code 1), PgBinarySend (storage/value/pg_binary.h).
// Not for NULL.
std::string EncodeBinaryValue(const Value& value);

// One Bind parameter. `client_oid` is what Parse declared (0 if nothing);
// `target` the type the statement expects (nullopt: unknown). Binary input is
// read as client_oid's type (or target's when client_oid is 0), then cast to
// target. Throws DbError: 22P03 `incorrect binary data format in bind parameter
// N`, 42P18 when no type is known for a binary value, the input functions'
// errors (22P02, 22007, ...) for text.
Value DecodeParameter(std::string_view bytes, int16_t format, int32_t client_oid,
                      const std::optional<Type>& target, int parameter_number);

// numeric's binary form -> decimal text ("-12.50"); a malformed one is 22P03
// naming the parameter. The other way: DecimalToNumericBinary (pg_binary.h).
std::string NumericBinaryToText(std::string_view bytes, int parameter_number);

}  // namespace forktail
