#include "storage/value/pg_binary.h"

#include <bit>
#include <cstdio>
#include <vector>

#include "storage/error.h"
#include "storage/value/datetime.h"
#include "storage/value/decimal.h"
#include "storage/value/interval.h"
#include "storage/value/pg_type_oid.h"
#include "storage/value/utf8.h"
#include "storage/value/uuid.h"

namespace forktail {
namespace {

// Days and microseconds between 1970-01-01 (Forktail's epoch) and 2000-01-01
// (PostgreSQL's).
constexpr int32_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = int64_t{kPgEpochDays} * 86'400'000'000;

constexpr uint16_t kNumericPositive = 0x0000;
constexpr uint16_t kNumericNegative = 0x4000;
constexpr uint16_t kNumericNaN = 0xC000;
constexpr uint16_t kNumericPlusInfinity = 0xD000;
constexpr uint16_t kNumericMinusInfinity = 0xF000;
constexpr uint16_t kNumericDscaleMask = 0x3FFF;

void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

[[noreturn]] void ThrowBadFormat(const char* message) {
  throw DbError("22P03", message);  // invalid_binary_representation
}

// PostgreSQL's pq_getmsg* over one value: reading past the end is 08P01, as
// in PostgreSQL (the value is a message buffer there).
class BinaryReader {
 public:
  explicit BinaryReader(std::string_view bytes) : bytes_(bytes) {}

  uint64_t Unsigned(size_t size) {
    if (bytes_.size() - pos_ < size) {
      throw DbError(sqlstate::kProtocolViolation, "insufficient data left in message");
    }
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) v = (v << 8) | static_cast<unsigned char>(bytes_[pos_ + i]);
    pos_ += size;
    return v;
  }
  std::string_view Rest() {
    std::string_view rest = bytes_.substr(pos_);
    pos_ = bytes_.size();
    return rest;
  }
  // COPY's and Bind's check after the receive function returned.
  void ExpectEnd() const {
    if (pos_ != bytes_.size()) ThrowBadFormat("incorrect binary data format");
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

std::string ReadNumericText(BinaryReader& r) {
  const auto ndigits = static_cast<uint16_t>(r.Unsigned(2));
  const auto weight = static_cast<int16_t>(r.Unsigned(2));
  const auto sign = static_cast<uint16_t>(r.Unsigned(2));
  if (sign != kNumericPositive && sign != kNumericNegative && sign != kNumericNaN &&
      sign != kNumericPlusInfinity && sign != kNumericMinusInfinity) {
    ThrowBadFormat("invalid sign in external \"numeric\" value");
  }
  const auto dscale = static_cast<uint16_t>(r.Unsigned(2));
  if ((dscale & kNumericDscaleMask) != dscale) {
    ThrowBadFormat("invalid scale in external \"numeric\" value");
  }
  std::vector<int> digits(ndigits);
  for (int& d : digits) {
    d = static_cast<int16_t>(r.Unsigned(2));
    if (d < 0 || d >= 10000) ThrowBadFormat("invalid digit in external \"numeric\" value");
  }
  if (sign == kNumericNaN) return "NaN";
  if (sign == kNumericPlusInfinity) return "Infinity";
  if (sign == kNumericMinusInfinity) return "-Infinity";
  std::string text = sign == kNumericNegative ? "-" : "";
  // A value of 40 or more integer digits overflows every DECIMAL: a short
  // text of that magnitude gets the same overflow error from the DECIMAL
  // parser without spelling out up to 131,072 digits.
  if (ndigits > 0 && weight > 9) return text + "1" + std::string(40, '0');
  auto group = [&](int w) {
    const int i = weight - w;
    return i >= 0 && i < ndigits ? digits[i] : 0;
  };
  std::string int_part;
  for (int w = weight; w >= 0; --w) {
    char buf[8];
    std::snprintf(buf, sizeof buf, int_part.empty() ? "%d" : "%04d", group(w));
    if (!(int_part.empty() && buf[0] == '0' && buf[1] == 0)) int_part += buf;
  }
  text += int_part.empty() ? "0" : int_part;
  if (dscale > 0) {
    std::string frac;
    for (int w = -1; static_cast<int>(frac.size()) < dscale; --w) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%04d", group(w));
      frac += buf;
    }
    text += "." + frac.substr(0, dscale);
  }
  return text;
}

Value ReadValue(BinaryReader& r, const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean:
      return Value::Boolean(r.Unsigned(1) != 0);
    case TypeId::kSmallInt:
      return Value::SmallInt(static_cast<int16_t>(r.Unsigned(2)));
    case TypeId::kInteger:
      return Value::Integer(static_cast<int32_t>(r.Unsigned(4)));
    case TypeId::kBigInt:
      return Value::BigInt(static_cast<int64_t>(r.Unsigned(8)));
    case TypeId::kDouble:
      return Value::Double(std::bit_cast<double>(r.Unsigned(8)));
    case TypeId::kDecimal:
      return Value::Parse(type, ReadNumericText(r));
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText: {
      std::string_view text = r.Rest();
      CheckUtf8(text);
      return Value::Text(std::string(text)).CastTo(type);
    }
    case TypeId::kJson: {  // json_recv: the text
      std::string_view text = r.Rest();
      CheckUtf8(text);
      return Value::Parse(type, text);
    }
    case TypeId::kJsonb: {  // PostgreSQL's jsonb_recv: a version byte (1), then the text
      if (r.Unsigned(1) != 1) {
        throw DbError("22P03", "unsupported jsonb version number");
      }
      std::string_view text = r.Rest();
      CheckUtf8(text);
      return Value::Parse(type, text);
    }
    case TypeId::kBytea:  // bytearecv: the bytes as they are
      return Value::String(type, std::string(r.Rest()));
    case TypeId::kTime: {  // time_recv: microseconds since midnight
      const auto us = static_cast<int64_t>(r.Unsigned(8));
      if (us < 0 || us > datetime::kMaxTime) {
        throw DbError(sqlstate::kDatetimeFieldOverflow, "time out of range");
      }
      return Value::String(type, datetime::EncodeTime(us));
    }
    case TypeId::kInterval: {  // interval_recv: microseconds, days, months
      datetime::Interval iv;
      iv.micros = static_cast<int64_t>(r.Unsigned(8));
      iv.days = static_cast<int32_t>(r.Unsigned(4));
      iv.months = static_cast<int32_t>(r.Unsigned(4));
      return Value::String(type, interval::Encode(iv));
    }
    case TypeId::kUuid: {  // uuid_recv: the 16 bytes
      uint8_t bytes[uuid::kBytes];
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(r.Unsigned(1));
      return Value::String(type, uuid::FromBytes(bytes));
    }
    case TypeId::kDate: {
      // Forktail's dates are years 1..9999 (as the text input checks):
      // every date computation (date + interval, casts) relies on it.
      const int64_t days = int64_t{static_cast<int32_t>(r.Unsigned(4))} + kPgEpochDays;
      if (days < datetime::kMinDate || days > datetime::kMaxDate) {
        throw DbError(sqlstate::kDatetimeFieldOverflow, "date out of range");
      }
      return Value::Date(static_cast<int32_t>(days));
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      auto us = static_cast<int64_t>(r.Unsigned(8));
      if (__builtin_add_overflow(us, kPgEpochMicros, &us) || us < datetime::kMinTimestamp ||
          us > datetime::kMaxTimestamp) {
        throw DbError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
      }
      return type.id == TypeId::kTimestamp ? Value::Timestamp(us) : Value::TimestampTz(us);
    }
  }
  throw DbError(sqlstate::kInternalError, "no binary format for type " + type.ToString());
}

}  // namespace

std::string PgBinarySend(const Value& value) {
  if (value.type().IsArrayText() && !value.type().IsCatalogArrayText()) return PgArraySend(value);
  std::string out;
  switch (value.type().id) {
    case TypeId::kBoolean:
      out.push_back(value.GetBool() ? 1 : 0);
      break;
    case TypeId::kSmallInt:
      PutBigEndian(&out, static_cast<uint16_t>(value.GetInt()), 2);
      break;
    case TypeId::kInteger:
      PutBigEndian(&out, static_cast<uint32_t>(value.GetInt()), 4);
      break;
    case TypeId::kBigInt:
      PutBigEndian(&out, static_cast<uint64_t>(value.GetInt()), 8);
      break;
    case TypeId::kDouble:
      PutBigEndian(&out, std::bit_cast<uint64_t>(value.GetDouble()), 8);
      break;
    case TypeId::kDecimal:
      out = DecimalToNumericBinary(value.GetWide(), value.type().scale);
      break;
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJson:
      out = value.GetString();
      break;
    case TypeId::kJsonb:
      out.push_back(1);  // jsonb_send's version
      out += value.GetString();
      break;
    case TypeId::kBytea:
      out = value.GetString();
      break;
    case TypeId::kTime:
      PutBigEndian(&out, static_cast<uint64_t>(datetime::DecodeTime(value.GetString())), 8);
      break;
    case TypeId::kInterval: {
      const datetime::Interval iv = interval::Decode(value.GetString());
      PutBigEndian(&out, static_cast<uint64_t>(iv.micros), 8);
      PutBigEndian(&out, static_cast<uint32_t>(iv.days), 4);
      PutBigEndian(&out, static_cast<uint32_t>(iv.months), 4);
      break;
    }
    case TypeId::kUuid: {
      uint8_t bytes[uuid::kBytes];
      uuid::ToBytes(value.GetString(), bytes);
      out.assign(reinterpret_cast<const char*>(bytes), uuid::kBytes);
      break;
    }
    case TypeId::kDate:
      PutBigEndian(&out, static_cast<uint32_t>(static_cast<int32_t>(value.GetInt() - kPgEpochDays)),
                   4);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      PutBigEndian(&out, static_cast<uint64_t>(value.GetInt() - kPgEpochMicros), 8);
      break;
  }
  return out;
}

Value PgBinaryReceive(std::string_view bytes, const Type& type) {
  if (type.IsArrayText() && !type.IsCatalogArrayText()) return PgArrayReceive(bytes, type);
  BinaryReader r(bytes);
  Value v = ReadValue(r, type);
  r.ExpectEnd();
  return v;
}

std::string PgNumericBinaryToText(std::string_view bytes) {
  BinaryReader r(bytes);
  std::string text = ReadNumericText(r);
  r.ExpectEnd();
  return text;
}

std::string DecimalToNumericBinary(__int128 unscaled, int scale) {
  bool negative = unscaled < 0;
  std::string digits = decimal::FormatWide(unscaled, 0);
  if (negative) digits.erase(0, 1);
  if (static_cast<int>(digits.size()) <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  std::string int_part = digits.substr(0, digits.size() - scale);
  std::string frac_part = digits.substr(digits.size() - scale);
  int_part.insert(0, (4 - int_part.size() % 4) % 4, '0');
  frac_part.append((4 - frac_part.size() % 4) % 4, '0');
  std::vector<int16_t> groups;
  for (size_t i = 0; i < int_part.size(); i += 4)
    groups.push_back(static_cast<int16_t>(std::stoi(int_part.substr(i, 4))));
  int weight = static_cast<int>(groups.size()) - 1;
  for (size_t i = 0; i < frac_part.size(); i += 4)
    groups.push_back(static_cast<int16_t>(std::stoi(frac_part.substr(i, 4))));
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  std::string out;
  if (first == last) weight = 0;
  PutBigEndian(&out, static_cast<uint16_t>(last - first), 2);
  PutBigEndian(&out, static_cast<uint16_t>(static_cast<int16_t>(weight)), 2);
  PutBigEndian(&out, negative && first != last ? kNumericNegative : kNumericPositive, 2);
  PutBigEndian(&out, static_cast<uint16_t>(scale), 2);
  for (size_t i = first; i < last; ++i) PutBigEndian(&out, static_cast<uint16_t>(groups[i]), 2);
  return out;
}

}  // namespace forktail
