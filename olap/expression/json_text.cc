#include "olap/expression/json_text.h"

#include <cctype>
#include <cmath>
#include <string_view>
#include <vector>

#include "olap/common/kernel_util.h"
#include "storage/value/array_text.h"
#include "storage/value/datetime.h"
#include "storage/value/jsonb.h"
#include "storage/value/value.h"

namespace forktail {
namespace {

using Sv = std::string_view;

// "2024-01-02 10:00:00" -> "2024-01-02T10:00:00"; with a zone, "+05" -> "+05:00".
std::string IsoTimestamp(std::string text, bool with_zone) {
  if (text.size() > 10 && text[10] == ' ') text[10] = 'T';
  if (with_zone) {
    const size_t sign = text.find_last_of("+-");
    if (sign != std::string::npos && sign > 10 && text.size() - sign == 3) text += ":00";
  }
  return jsonb::Quote(text);
}

// An array element in its array-text form (array_out's), as JSON.
std::string ElementToJson(Sv text, const Type& element, bool jsonb) {
  switch (element.id) {
    case TypeId::kBoolean:
      return text == "t" || text == "true" ? "true" : "false";
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return std::string(text);
    case TypeId::kDecimal:
      return jsonb ? jsonb::Canonicalize(text) : std::string(text);
    case TypeId::kDouble:
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") return jsonb::Quote(text);
      if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.back())))) {
        return jsonb::Quote(text);  // no JSON number (nan, inf): a string, as PostgreSQL
      }
      return jsonb ? jsonb::Canonicalize(text) : std::string(text);
    case TypeId::kJson:
    case TypeId::kJsonb:
      return jsonb ? jsonb::Canonicalize(text) : std::string(text);
    case TypeId::kTimestamp:
      return IsoTimestamp(std::string(text), false);
    case TypeId::kTimestampTz:
      return IsoTimestamp(std::string(text), true);
    default:
      return jsonb::Quote(text);
  }
}

std::string ArrayToJson(Sv text, const Type& element, bool jsonb) {
  std::vector<std::string> elements;
  for (const std::optional<std::string>& e : ParseArrayText(text)) {
    elements.push_back(e ? ElementToJson(*e, element, jsonb) : "null");
  }
  if (jsonb) return jsonb::ArrayFromElements(elements);
  std::string out = "[";
  for (size_t k = 0; k < elements.size(); k++) {
    if (k > 0) out += ',';
    out += elements[k];
  }
  return out + "]";
}

}  // namespace

std::string ValueToJson(const Vector& v, uint32_t i, const datetime::TimeZone& zone, bool jsonb) {
  const Type& type = v.type();
  switch (type.id) {
    case TypeId::kJsonb:
      return std::string(v.data<Sv>()[i]);
    case TypeId::kJson:
      return jsonb ? jsonb::Canonicalize(v.data<Sv>()[i]) : std::string(v.data<Sv>()[i]);
    case TypeId::kBoolean:
      return v.data<uint8_t>()[i] ? "true" : "false";
    case TypeId::kDouble: {
      const double d = v.data<double>()[i];
      std::string text = Value::Double(d).ToString();
      // NaN and the infinities are no JSON numbers: PostgreSQL gives strings.
      return std::isfinite(d) ? jsonb::Canonicalize(text) : jsonb::Quote(text);
    }
    case TypeId::kSmallInt:
      return std::to_string(v.data<int16_t>()[i]);
    case TypeId::kInteger:
      return std::to_string(v.data<int32_t>()[i]);
    case TypeId::kBigInt:
      return std::to_string(v.data<int64_t>()[i]);
    case TypeId::kDecimal: {
      const __int128 x = type.IsWideDecimal() ? v.data<__int128>()[i] : v.data<int64_t>()[i];
      return jsonb::Canonicalize(Value::Decimal(x, type.precision, type.scale).ToString());
    }
    case TypeId::kDate:
      return jsonb::Quote(datetime::FormatDate(v.data<int32_t>()[i]));
    case TypeId::kTimestamp:  // ISO 8601, as PostgreSQL's JSON output: "2024-01-02T10:00:00"
      return IsoTimestamp(datetime::FormatTimestamp(v.data<int64_t>()[i]), false);
    case TypeId::kTimestampTz:  // "2024-01-02T10:00:00+00:00"
      return IsoTimestamp(datetime::FormatTimestampTz(v.data<int64_t>()[i], zone), true);
    default: {  // the string types
      const Sv text = v.data<Sv>()[i];
      if (type.IsArrayText()) return ArrayToJson(text, type.ArrayElement(), jsonb);
      return jsonb::Quote(type.id == TypeId::kChar ? TrimTrailingBlanks(text) : text);
    }
  }
}

}  // namespace forktail
