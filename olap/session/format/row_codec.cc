#include "olap/session/format/row_codec.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace forktail {
namespace {

void PutU8(std::string* out, uint8_t v) { out->push_back(static_cast<char>(v)); }
void PutU16(std::string* out, uint16_t v) {
  PutU8(out, v & 0xff);
  PutU8(out, v >> 8);
}
void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; i++) PutU8(out, (v >> (8 * i)) & 0xff);
}
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    PutU8(out, static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  PutU8(out, static_cast<uint8_t>(v));
}
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

[[noreturn]] void Malformed(const std::string& what) {
  throw DbError(sqlstate::kProtocolViolation, "malformed result batch from snapshot: " + what);
}

// Bounds-checked reader over one batch.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool done() const { return pos_ == in_.size(); }
  uint8_t U8() {
    Need(1);
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint16_t U16() {
    uint16_t lo = U8();
    return static_cast<uint16_t>(lo | (U8() << 8));
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= static_cast<uint32_t>(U8()) << (8 * i);
    return v;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = U8();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Malformed("varint longer than 10 bytes");
  }
  std::string_view Bytes(size_t n) {
    Need(n);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  void Need(size_t n) {
    if (in_.size() - pos_ < n) Malformed("truncated");
  }
  std::string_view in_;
  size_t pos_ = 0;
};

void EncodeValue(const Type& type, const Value& value, std::string* out) {
  const Value* v = &value;
  Value cast;
  if (value.type().id != type.id ||
      (type.id == TypeId::kDecimal && !value.is_null() && !(value.type() == type))) {
    cast = value.CastTo(type);
    v = &cast;
  }
  switch (type.id) {
    case TypeId::kBoolean:
      PutU8(out, v->GetBool() ? 1 : 0);
      return;
    case TypeId::kDouble: {
      double d = v->GetDouble();
      char bytes[8];
      std::memcpy(bytes, &d, 8);
      out->append(bytes, 8);
      return;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      PutVarint(out, v->GetString().size());
      out->append(v->GetString());
      return;
    case TypeId::kDecimal:
      if (type.IsWideDecimal()) {  // 16 bytes, little-endian two's complement
        __int128 w = v->GetWide();
        char bytes[16];
        std::memcpy(bytes, &w, 16);
        out->append(bytes, 16);
        return;
      }
      PutVarint(out, ZigZag(v->GetInt()));
      return;
    default:
      PutVarint(out, ZigZag(v->GetInt()));
      return;
  }
}

Value DecodeValue(const Type& type, Reader& r) {
  switch (type.id) {
    case TypeId::kBoolean:
      return Value::Boolean(r.U8() != 0);
    case TypeId::kSmallInt:
      return Value::SmallInt(static_cast<int16_t>(UnZigZag(r.Varint())));
    case TypeId::kInteger:
      return Value::Integer(static_cast<int32_t>(UnZigZag(r.Varint())));
    case TypeId::kBigInt:
      return Value::BigInt(UnZigZag(r.Varint()));
    case TypeId::kDecimal: {
      if (type.IsWideDecimal()) {
        std::string_view b = r.Bytes(16);
        __int128 w;
        std::memcpy(&w, b.data(), 16);
        return Value::Decimal(w, type.precision, type.scale);
      }
      return Value::Decimal(UnZigZag(r.Varint()), type.precision, type.scale);
    }
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(UnZigZag(r.Varint())));
    case TypeId::kTimestamp:
      return Value::Timestamp(UnZigZag(r.Varint()));
    case TypeId::kTimestampTz:
      return Value::TimestampTz(UnZigZag(r.Varint()));
    case TypeId::kDouble: {
      std::string_view b = r.Bytes(8);
      double d;
      std::memcpy(&d, b.data(), 8);
      return Value::Double(d);
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson: {
      uint64_t n = r.Varint();
      return Value::String(type, std::string(r.Bytes(n)));
    }
  }
  Malformed("unknown type");
}

}  // namespace

std::string EncodeResultHeader(const std::vector<ResultColumn>& columns) {
  std::string out;
  PutU8(&out, static_cast<uint8_t>(ResultBatchKind::kHeader));
  PutU16(&out, static_cast<uint16_t>(columns.size()));
  for (const ResultColumn& c : columns) {
    size_t n = std::min<size_t>(c.name.size(), UINT16_MAX);
    PutU16(&out, static_cast<uint16_t>(n));
    out.append(c.name.data(), n);
    PutU8(&out, static_cast<uint8_t>(c.type.id));
    PutU8(&out, c.type.precision);
    PutU8(&out, c.type.scale);
    PutU32(&out, c.type.length);
  }
  return out;
}

std::string EncodeResultRows(const std::vector<Type>& types, const Row* rows, size_t count) {
  std::string out;
  PutU8(&out, static_cast<uint8_t>(ResultBatchKind::kRows));
  PutU32(&out, static_cast<uint32_t>(count));
  const size_t bitmap_bytes = (types.size() + 7) / 8;
  for (size_t i = 0; i < count; i++) {
    const Row& row = rows[i];
    assert(row.size() == types.size());
    size_t bitmap_at = out.size();
    out.append(bitmap_bytes, '\0');
    for (size_t c = 0; c < types.size(); c++) {
      if (row[c].is_null()) {
        out[bitmap_at + c / 8] = static_cast<char>(out[bitmap_at + c / 8] | (1 << (c % 8)));
      } else {
        EncodeValue(types[c], row[c], &out);
      }
    }
  }
  return out;
}

std::string EncodeResultTag(std::string_view tag) {
  std::string out;
  PutU8(&out, static_cast<uint8_t>(ResultBatchKind::kTag));
  out.append(tag);
  return out;
}

void ResultDecoder::Add(std::string_view batch) {
  Reader r(batch);
  uint8_t kind = r.U8();
  if (has_tag_) Malformed("batch after the tag");
  if (kind == static_cast<uint8_t>(ResultBatchKind::kHeader)) {
    if (has_header_) Malformed("second header");
    std::vector<ResultColumn> columns(r.U16());
    for (ResultColumn& c : columns) {
      c.name = std::string(r.Bytes(r.U16()));
      uint8_t id = r.U8();
      if (!IsKnownTypeId(id)) Malformed("unknown type id " + std::to_string(id));
      c.type.id = static_cast<TypeId>(id);
      c.type.precision = r.U8();
      c.type.scale = r.U8();
      c.type.length = r.U32();
      if (c.type.id == TypeId::kDecimal &&
          (c.type.precision < 1 || c.type.precision > kMaxDecimalPrecision ||
           c.type.scale > c.type.precision)) {
        Malformed("bad numeric type");
      }
      types_.push_back(c.type);
    }
    if (!r.done()) Malformed("trailing bytes after the header");
    result_.columns = std::move(columns);
    has_header_ = true;
  } else if (kind == static_cast<uint8_t>(ResultBatchKind::kRows)) {
    if (!has_header_) Malformed("rows before the header");
    uint32_t count = r.U32();
    const size_t bitmap_bytes = (types_.size() + 7) / 8;
    std::vector<Row> rows;
    rows.reserve(std::min<uint32_t>(count, 4096));
    for (uint32_t i = 0; i < count; i++) {
      std::string_view bitmap = r.Bytes(bitmap_bytes);
      Row row;
      row.reserve(types_.size());
      for (size_t c = 0; c < types_.size(); c++) {
        if ((static_cast<uint8_t>(bitmap[c / 8]) >> (c % 8)) & 1) {
          row.push_back(Value::Null(types_[c]));
        } else {
          row.push_back(DecodeValue(types_[c], r));
        }
      }
      rows.push_back(std::move(row));
    }
    if (!r.done()) Malformed("trailing bytes after the rows");
    for (Row& row : rows) result_.rows.push_back(std::move(row));
  } else if (kind == static_cast<uint8_t>(ResultBatchKind::kTag)) {
    result_.command_tag = std::string(batch.substr(1));
    has_tag_ = true;
  } else {
    Malformed("unknown batch kind " + std::to_string(kind));
  }
}

std::string EncodeQueryRequest(const QueryRequest& request) {
  std::string out;
  PutU32(&out, static_cast<uint32_t>(request.sql.size()));
  out.append(request.sql);
  auto put_string = [&](const std::string& text) {
    PutU32(&out, static_cast<uint32_t>(text.size()));
    out.append(text);
  };
  put_string(request.time_zone);
  put_string(request.user);
  put_string(request.database);
  PutU32(&out, static_cast<uint32_t>(request.backend_pid));
  PutU32(&out, static_cast<uint32_t>(request.settings.size()));
  for (const std::vector<std::string>& setting : request.settings) {
    for (size_t i = 0; i < 3; i++) put_string(i < setting.size() ? setting[i] : std::string());
  }
  std::vector<ResultColumn> columns;
  for (const Type& t : request.parameter_types) columns.push_back({"", t});
  std::string header = EncodeResultHeader(columns);
  PutU32(&out, static_cast<uint32_t>(header.size()));
  out.append(header);
  Row row = request.parameters;
  out.append(EncodeResultRows(request.parameter_types, &row, 1));
  return out;
}

QueryRequest DecodeQueryRequest(std::string_view bytes) {
  Reader r(bytes);
  QueryRequest request;
  request.sql = std::string(r.Bytes(r.U32()));
  request.time_zone = std::string(r.Bytes(r.U32()));
  request.user = std::string(r.Bytes(r.U32()));
  request.database = std::string(r.Bytes(r.U32()));
  request.backend_pid = static_cast<int32_t>(r.U32());
  const uint32_t settings = r.U32();
  for (uint32_t i = 0; i < settings; i++) {
    std::vector<std::string> setting;
    for (size_t k = 0; k < 3; k++) setting.emplace_back(r.Bytes(r.U32()));
    request.settings.push_back(std::move(setting));
  }
  std::string_view header = r.Bytes(r.U32());
  ResultDecoder decoder;
  decoder.Add(header);
  decoder.Add(bytes.substr(static_cast<size_t>(header.data() + header.size() - bytes.data())));
  const StatementResult& params = decoder.result();
  for (const ResultColumn& c : params.columns) request.parameter_types.push_back(c.type);
  if (params.rows.size() != 1) Malformed("request parameters");
  request.parameters = params.rows[0];
  return request;
}

DbError WithPositionInMessage(const DbError& error) {
  if (error.position() <= 0 && error.hint().empty()) return error;
  std::string message = error.what();
  if (!error.hint().empty()) message += std::string(kHintMarker) + error.hint();
  if (error.position() > 0) {
    message += std::string(kPositionMarker) + std::to_string(error.position());
  }
  return DbError(error.sqlstate(), message);
}

DbError WithPositionFromMessage(const DbError& error) {
  std::string_view message = error.what();
  int position = 0;
  size_t at = message.rfind(kPositionMarker);
  if (at != std::string_view::npos) {
    std::string_view digits = message.substr(at + kPositionMarker.size());
    for (char c : digits) {
      if (c < '0' || c > '9' || position > 100'000'000) return error;
      position = position * 10 + (c - '0');
    }
    message = message.substr(0, at);
  }
  std::string hint = error.hint();
  size_t h = message.rfind(kHintMarker);
  if (h != std::string_view::npos) {
    hint = std::string(message.substr(h + kHintMarker.size()));
    message = message.substr(0, h);
  }
  DbError out(error.sqlstate(), std::string(message), position);
  out.WithHint(std::move(hint));
  return out;
}

}  // namespace forktail
