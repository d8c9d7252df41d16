#include "olap/execution/aggregate/list_agg.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace forktail {
namespace {

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() == 4) {
    std::string lower;
    for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    if (lower == "null") return true;
  }
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || c == ' ' || c == '\t' ||
        c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string KeyedListAggInput(std::string key, const std::optional<std::string_view>& value) {
  key.push_back(value ? '\x01' : '\x00');
  const uint32_t n = value ? static_cast<uint32_t>(value->size()) : 0;
  if (value) key.append(*value);
  for (int shift = 24; shift >= 0; shift -= 8)
    key.push_back(static_cast<char>((n >> shift) & 0xFF));
  return key;
}

std::string WrapListAggInput(const std::optional<std::string_view>& value) {
  if (!value) return std::string(1, '\x00');
  std::string out(1, '\x01');
  out += *value;
  return out;
}

namespace {

void DropFilteredAndUnwrap(const ListAggOrder& order, ListAggValues* values) {
  std::erase_if(*values, [](const std::optional<std::string>& v) { return !v.has_value(); });
  if (order.by == ListAggOrder::By::kKeyed) return;  // keyed inputs hold their NULLs
  for (std::optional<std::string>& v : *values) {
    if ((*v)[0] == '\x00') {
      v.reset();
    } else {
      v->erase(0, 1);
    }
  }
}

void KeepFirstOfEqual(ListAggValues* values) {
  std::unordered_set<std::string> seen;
  bool seen_null = false;
  std::erase_if(*values, [&](const std::optional<std::string>& v) {
    if (!v) return std::exchange(seen_null, true);
    return !seen.insert(*v).second;
  });
}

void SortValues(const ListAggOrder& order, ListAggValues* values);

}  // namespace

void SortListAgg(const ListAggOrder& order, ListAggValues* values) {
  if (order.filtered) DropFilteredAndUnwrap(order, values);
  SortValues(order, values);
  if (order.distinct) KeepFirstOfEqual(values);
}

namespace {

void SortValues(const ListAggOrder& order, ListAggValues* values) {
  if (order.by == ListAggOrder::By::kNone) return;
  if (order.by == ListAggOrder::By::kKeyed) {
    // Keyed inputs are never NULL; sort by their bytes, then unwrap.
    std::stable_sort(values->begin(), values->end(),
                     [](const std::optional<std::string>& a, const std::optional<std::string>& b) {
                       return *a < *b;
                     });
    for (std::optional<std::string>& v : *values) {
      const std::string& s = *v;
      uint32_t n = 0;
      for (size_t k = s.size() - 4; k < s.size(); ++k) n = (n << 8) | static_cast<uint8_t>(s[k]);
      const size_t flag = s.size() - 4 - n - 1;
      if (s[flag] == '\x00') {
        v.reset();
      } else {
        v = s.substr(flag + 1, n);
      }
    }
    return;
  }
  auto less = [&](const std::optional<std::string>& a, const std::optional<std::string>& b) {
    if (!a || !b) {
      if (!a && !b) return false;
      return order.nulls_first ? !a : !b;
    }
    bool lt, gt;
    if (order.by == ListAggOrder::By::kNumber) {
      double x = std::strtod(a->c_str(), nullptr);
      double y = std::strtod(b->c_str(), nullptr);
      lt = x < y;
      gt = x > y;
    } else {
      lt = *a < *b;
      gt = *b < *a;
    }
    return order.descending ? gt : lt;
  };
  std::stable_sort(values->begin(), values->end(), less);
}

}  // namespace

std::optional<std::string> StringAggResult(const ListAggValues& values,
                                           const std::string& separator) {
  std::optional<std::string> out;
  for (const auto& v : values) {
    if (!v) continue;
    if (out) {
      *out += separator;
      *out += *v;
    } else {
      out = *v;
    }
  }
  return out;
}

std::optional<std::string> ArrayAggResult(const ListAggValues& values) {
  if (values.empty()) return std::nullopt;
  std::string out = "{";
  for (size_t i = 0; i < values.size(); i++) {
    if (i > 0) out += ',';
    if (!values[i]) {
      out += "NULL";
    } else if (!NeedsQuotes(*values[i])) {
      out += *values[i];
    } else {
      out += '"';
      for (char c : *values[i]) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += '"';
    }
  }
  return out + "}";
}

}  // namespace forktail
