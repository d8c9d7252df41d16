#include "olap/plan/binder/table_function.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olap/expression/regex.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/constant_folding.h"
#include "storage/error.h"
#include "storage/value/interval.h"
#include "storage/value/jsonb.h"
#include "storage/value/timezone.h"

namespace forktail {

namespace {

[[noreturn]] void Unsupported(const std::string& what) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported");
}

// How many values generate_series(from, to [, step]) over integers has.
uint64_t IntSeriesCount(const std::vector<Value>& args) {
  const int64_t from = args[0].GetInt(), to = args[1].GetInt();
  const int64_t step = args.size() == 3 ? args[2].GetInt() : 1;
  if (step == 0) throw DbError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
  // In unsigned arithmetic: b - a cannot overflow for any int64 pair.
  const uint64_t span =
      step > 0
          ? (to >= from ? static_cast<uint64_t>(to) - static_cast<uint64_t>(from) : UINT64_MAX)
          : (from >= to ? static_cast<uint64_t>(from) - static_cast<uint64_t>(to) : UINT64_MAX);
  if (span == UINT64_MAX) return 0;
  const uint64_t abs_step =
      step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
  return span / abs_step + 1;
}

// A kSeries node for generate_series over integers with more than
// kSeriesValuesRows values; nullptr otherwise.
LogicalOpPtr SeriesNode(const LogicalOp& op, const std::vector<Value>& args) {
  std::string name = op.function_name;
  if (name.rfind(kZipPrefix, 0) == 0) {
    name = name.substr(std::string(kZipPrefix).size());
    if (name.find(',') != std::string::npos) return nullptr;  // several calls zipped
    name = name.substr(0, name.find('/'));
  }
  // The value column, then WITH ORDINALITY's BIGINT.
  if (name != "generate_series" || op.columns.size() > 2) return nullptr;
  const Type& type = op.columns[0].type;
  if (type.id != TypeId::kInteger && type.id != TypeId::kBigInt) return nullptr;
  for (const Value& a : args) {
    if (a.is_null()) return nullptr;
  }
  const uint64_t count = IntSeriesCount(args);
  if (count <= static_cast<uint64_t>(kSeriesValuesRows)) return nullptr;
  auto series = std::make_unique<LogicalOp>();
  series->kind = LogicalOpKind::kSeries;
  series->columns = op.columns;
  series->series.from = args[0].GetInt();
  series->series.step = args.size() == 3 ? args[2].GetInt() : 1;
  series->series.count = count;
  return series;
}

// regexp_matches, regexp_split_to_table and string_to_table: the rows' text
// (an array's text for regexp_matches) for arguments that are not NULL
// (string_to_table's separator and null string may be).
std::vector<std::optional<std::string>> TextSetValues(const std::string& name,
                                                      const std::vector<Value>& args) {
  std::vector<std::optional<std::string>> out;
  const std::string_view s = args[0].GetString();
  if (name == "string_to_table") {
    if (s.empty()) return out;
    const bool by_char = args[1].is_null();
    const std::string_view sep = by_char ? std::string_view() : args[1].GetString();
    size_t start = 0;
    while (start <= s.size()) {
      size_t hit = std::string_view::npos;
      if (by_char) {
        hit = start + 1;
        while (hit < s.size() && (static_cast<uint8_t>(s[hit]) & 0xC0) == 0x80) ++hit;
        if (hit >= s.size()) hit = std::string_view::npos;
      } else if (!sep.empty()) {
        hit = s.find(sep, start);
      }
      const size_t end = hit == std::string_view::npos ? s.size() : hit;
      out.emplace_back(std::string(s.substr(start, end - start)));
      if (hit == std::string_view::npos) break;
      start = by_char ? hit : hit + sep.size();
    }
    if (args.size() == 3 && !args[2].is_null()) {
      for (std::optional<std::string>& v : out) {
        if (v && *v == args[2].GetString()) v.reset();
      }
    }
    return out;
  }
  RegexFlags flags;
  if (args.size() == 3) flags = ParseRegexFlags(args[2].GetString());
  const Regex re(args[1].GetString(), flags);
  if (name == "regexp_split_to_table") {
    if (flags.global) {
      throw DbError("22023", "regexp_split_to_table() does not support the \"global\" option");
    }
    for (std::string& part : re.Split(s)) out.emplace_back(std::move(part));
    return out;
  }
  for (const Regex::Groups& m : re.Matches(s, flags.global)) out.emplace_back(FormatArrayText(m));
  return out;
}

// The function's values (one per output row) for constant arguments.
std::vector<Value> Series(const std::string& name, const Type& type,
                          const std::vector<Value>& args) {
  std::vector<Value> out;
  if (name == "generate_series") {
    for (const Value& a : args) {
      if (a.is_null()) return out;
    }
    if (type.id == TypeId::kTimestamp || type.id == TypeId::kTimestampTz) {
      // Timestamps by an interval step: until past the end, as PostgreSQL's
      // generate_series_timestamp (a zero step is an error).
      const datetime::Interval step = interval::Decode(args[2].GetString());
      const __int128 direction = interval::Span(step);
      if (direction == 0) {
        throw DbError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
      }
      const int64_t to = args[1].GetInt();
      const bool zoned = type.id == TypeId::kTimestampTz;
      for (int64_t v = args[0].GetInt(); direction > 0 ? v <= to : v >= to;) {
        if (static_cast<int64_t>(out.size()) >= kMaxSeriesRows) {
          Unsupported("generate_series of more than 1000000 rows");
        }
        out.push_back(zoned ? Value::TimestampTz(v) : Value::Timestamp(v));
        try {
          v = zoned ? datetime::AddIntervalTz(v, step, datetime::CurrentTimeZone())
                    : datetime::AddInterval(v, step);
        } catch (const DbError&) {
          break;  // past the last timestamp: the series ends
        }
      }
      return out;
    }
    const int64_t from = args[0].GetInt();
    const int64_t step = args.size() == 3 ? args[2].GetInt() : 1;
    const uint64_t count = IntSeriesCount(args);
    if (count > static_cast<uint64_t>(kMaxSeriesRows)) {
      Unsupported("generate_series of more than 1000000 rows");
    }
    int64_t v = from;
    for (uint64_t i = 0; i < count; i++, v += (i < count ? step : 0)) {
      out.push_back(type.id == TypeId::kBigInt ? Value::BigInt(v)
                                               : Value::Integer(static_cast<int32_t>(v)));
    }
    return out;
  }
  if (name == "jsonb_array_elements" || name == "jsonb_array_elements_text" ||
      name == "jsonb_object_keys") {
    if (args[0].is_null()) return out;
    const std::string_view j = args[0].GetString();
    if (name == "jsonb_object_keys") {
      for (std::string& key : jsonb::ObjectKeys(j)) out.push_back(Value::Text(std::move(key)));
      return out;
    }
    for (const std::string& element : jsonb::ArrayElements(j)) {
      if (type.id == TypeId::kJsonb) {
        out.push_back(Value::String(type, element));
      } else {
        std::optional<std::string> text = jsonb::Text(element);
        out.push_back(text ? Value::Text(std::move(*text)) : Value::Null(type));
      }
    }
    return out;
  }
  if (name == "generate_subscripts") {
    // Forktail's arrays have one dimension, subscripts from 1: any other
    // dimension has none (PostgreSQL returns no rows for it).
    if (args[0].is_null() || args[1].is_null() || args[1].GetInt() != 1) return out;
    const auto n = static_cast<int32_t>(ParseArrayText(args[0].GetString()).size());
    const bool reverse = args.size() == 3 && !args[2].is_null() && args[2].GetBool();
    for (int32_t i = 0; i < n; i++) out.push_back(Value::Integer(reverse ? n - i : i + 1));
    return out;
  }
  if (IsTextSetFunction(name)) {
    for (const Value& a : args) {
      if (a.is_null() && !(name == "string_to_table" && &a != &args[0])) return out;
    }
    for (std::optional<std::string>& v : TextSetValues(name, args)) {
      out.push_back(v ? Value::String(type, std::move(*v)) : Value::Null(type));
    }
    return out;
  }
  if (name == "unnest" || name == "_pg_expandarray") {
    if (args[0].is_null()) return out;
    for (const std::optional<std::string>& v : ParseArrayText(args[0].GetString())) {
      out.push_back(v ? Value::Parse(type, *v) : Value::Null(type));
    }
    return out;
  }
  Unsupported("function " + name + " in FROM");
}

bool IsJsonbEach(const std::string& name) {
  return name == "jsonb_each" || name == "jsonb_each_text";
}

// Value columns a call of `name` produces.
size_t ValueColumns(const std::string& name) {
  return name == "_pg_expandarray" || IsJsonbEach(name) ? 2 : 1;
}

// One call's rows: its value columns (the index n for _pg_expandarray).
std::vector<std::vector<Value>> CallRows(const std::string& name, const Type& type,
                                         const std::vector<Value>& args) {
  std::vector<std::vector<Value>> rows;
  if (IsJsonbEach(name)) {  // key, value (jsonb, or its text for jsonb_each_text)
    if (args[0].is_null()) return rows;
    for (auto& [key, value] : jsonb::Each(args[0].GetString())) {
      std::vector<Value> row;
      row.push_back(Value::Text(std::move(key)));
      if (name == "jsonb_each") {
        row.push_back(Value::String(Type::Jsonb(), std::move(value)));
      } else {
        std::optional<std::string> text = jsonb::Text(value);
        row.push_back(text ? Value::Text(std::move(*text)) : Value::Null(Type::Text()));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }
  std::vector<Value> series = Series(name, type, args);
  for (size_t i = 0; i < series.size(); i++) {
    std::vector<Value> row;
    row.push_back(std::move(series[i]));
    if (name == "_pg_expandarray") row.push_back(Value::Integer(static_cast<int32_t>(i + 1)));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The zipped node's rows (see the header).
std::vector<std::vector<Value>> ZipRows(const LogicalOp& op, const std::vector<Value>& args) {
  std::string spec = op.function_name.substr(std::string(kZipPrefix).size());
  std::vector<std::vector<std::vector<Value>>> calls;
  std::vector<size_t> first_column;
  size_t arg = 0, column = 0, pos = 0;
  while (pos < spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    std::string item = spec.substr(pos, comma - pos);
    size_t slash = item.find('/');
    std::string name = item.substr(0, slash);
    size_t argc = std::stoul(item.substr(slash + 1));
    std::vector<Value> call_args(args.begin() + static_cast<long>(arg),
                                 args.begin() + static_cast<long>(arg + argc));
    calls.push_back(CallRows(name, op.columns[column].type, call_args));
    first_column.push_back(column);
    arg += argc;
    column += ValueColumns(name);
    pos = comma + 1;
  }
  size_t n = 0;
  for (const auto& c : calls) n = std::max(n, c.size());
  std::vector<std::vector<Value>> rows(n);
  for (size_t r = 0; r < n; r++) {
    for (size_t c = 0; c < calls.size(); c++) {
      size_t width = (c + 1 < calls.size() ? first_column[c + 1] : column) - first_column[c];
      for (size_t k = 0; k < width; k++) {
        rows[r].push_back(r < calls[c].size() ? calls[c][r][k]
                                              : Value::Null(op.columns[first_column[c] + k].type));
      }
    }
  }
  return rows;
}

}  // namespace

LogicalOpPtr ExpandTableFunction(const LogicalOp& op) {
  std::vector<Value> args;
  for (const ExprPtr& e : op.expressions) {
    ExprPtr folded = FoldExpression(CloneExpr(*e));
    if (folded->kind != ExprKind::kConstant) {
      Unsupported(op.function_name + " with arguments that are not constant per row");
    }
    args.push_back(folded->constant);
  }
  if (LogicalOpPtr series = SeriesNode(op, args)) return series;
  auto values = std::make_unique<LogicalOp>();
  values->kind = LogicalOpKind::kValues;
  values->columns = op.columns;
  bool zip = op.function_name.rfind(kZipPrefix, 0) == 0;
  std::vector<std::vector<Value>> rows =
      zip ? ZipRows(op, args) : CallRows(op.function_name, op.columns[0].type, args);
  // (A zipped node's rows hold every call's columns: what follows them is
  // WITH ORDINALITY's.)
  size_t width =
      zip ? (rows.empty() ? op.columns.size() : rows[0].size()) : ValueColumns(op.function_name);
  for (size_t i = 0; i < rows.size(); i++) {
    std::vector<ExprPtr> row;
    for (Value& v : rows[i]) row.push_back(Constant(std::move(v)));
    // WITH ORDINALITY
    if (op.columns.size() > width) {
      row.push_back(Constant(Value::BigInt(static_cast<int64_t>(i + 1))));
    }
    values->rows.push_back(std::move(row));
  }
  return values;
}

std::string ZipFunctionName(const std::vector<std::pair<std::string, size_t>>& calls) {
  std::string s = kZipPrefix;
  for (size_t i = 0; i < calls.size(); i++) {
    s += (i ? "," : "") + calls[i].first + "/" + std::to_string(calls[i].second);
  }
  return s;
}

void ExpandTableFunctions(LogicalOpPtr* plan) {
  if ((*plan)->kind == LogicalOpKind::kTableFunction) {
    *plan = ExpandTableFunction(**plan);
    return;
  }
  for (LogicalOpPtr& c : (*plan)->children) {
    if (c) ExpandTableFunctions(&c);
  }
}

}  // namespace forktail
