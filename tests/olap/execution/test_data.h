// Random test data for the olap differential tests: rows of forktail::Value
// (the reference side) and the same rows as DataChunks (the kernel side).
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/olap.h"
#include "storage/error.h"
#include "storage/value/decimal.h"

namespace forktail::test {

struct ColumnGen {
  Type type;
  double null_frac = 0.1;
  int64_t domain = 100;  // distinct values (ints, strings, dates)
  double zipf = 0;       // 0 = uniform, else Zipf exponent
};

class Zipf {
 public:
  Zipf(int64_t n, double s) : cdf_(n) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) cdf_[i] = (sum += 1.0 / std::pow(i + 1, s));
    for (auto& c : cdf_) c /= sum;
  }
  int64_t operator()(std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
  }

 private:
  std::vector<double> cdf_;
};

inline std::vector<Row> RandomRows(const std::vector<ColumnGen>& cols, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows(n);
  for (const ColumnGen& g : cols) {
    Zipf zipf(g.zipf > 0 ? g.domain : 1, g.zipf > 0 ? g.zipf : 1);
    for (size_t i = 0; i < n; ++i) {
      if (std::bernoulli_distribution(g.null_frac)(rng)) {
        rows[i].push_back(Value::Null(g.type));
        continue;
      }
      int64_t x =
          g.zipf > 0 ? zipf(rng) : std::uniform_int_distribution<int64_t>(0, g.domain - 1)(rng);
      int64_t signed_x = x - g.domain / 2;
      switch (g.type.id) {
        case TypeId::kBoolean:
          rows[i].push_back(Value::Boolean(x % 2));
          break;
        case TypeId::kSmallInt:
          rows[i].push_back(Value::SmallInt(static_cast<int16_t>(signed_x)));
          break;
        case TypeId::kInteger:
          rows[i].push_back(Value::Integer(static_cast<int32_t>(signed_x)));
          break;
        case TypeId::kBigInt:
          rows[i].push_back(Value::BigInt(signed_x));
          break;
        case TypeId::kDouble:
          rows[i].push_back(Value::Double(signed_x / 4.0));
          break;
        case TypeId::kDecimal:
          rows[i].push_back(Value::Decimal(signed_x * 37, g.type.precision, g.type.scale));
          break;
        case TypeId::kDate:
          rows[i].push_back(Value::Date(static_cast<int32_t>(8000 + x * 13)));
          break;
        case TypeId::kTimestamp:
          rows[i].push_back(
              Value::Timestamp((8000 + x * 13) * 86400000000LL + x * 3600000000LL + 7));
          break;
        default: {
          std::string s = "s" + std::to_string(x);
          if (x % 3 == 0) s += "_ab%c";
          if (x % 5 == 0) s = "x" + s;
          rows[i].push_back(Value::String(g.type, s));
        }
      }
    }
  }
  return rows;
}

// Copies rows into chunks of at most kVectorSize rows (strings kept alive
// by the rows themselves).
inline std::vector<DataChunk> ToChunks(const std::vector<Type>& types, const std::vector<Row>& rows,
                                       uint32_t chunk_rows = kVectorSize) {
  std::vector<DataChunk> out;
  for (size_t base = 0; base < rows.size(); base += chunk_rows) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(chunk_rows, rows.size() - base));
    DataChunk c(types);
    for (size_t col = 0; col < types.size(); ++col) {
      Vector& v = c.column(col);
      for (uint32_t i = 0; i < n; ++i) {
        const Value& x = rows[base + i][col];
        if (x.is_null()) {
          v.SetNull(i, true);
          continue;
        }
        DispatchPhysical(v.physical(), [&]<typename T>() {
          T* d = v.mutable_data<T>();
          if constexpr (std::is_same_v<T, std::string_view>) {
            d[i] = x.GetString();
          } else if constexpr (std::is_same_v<T, double>) {
            d[i] = x.GetDouble();
          } else {
            d[i] = static_cast<T>(x.GetWide());  // GetInt(), or a wide DECIMAL's __int128
          }
        });
      }
    }
    c.set_size(n);
    out.push_back(std::move(c));
  }
  return out;
}

// Reads row i of a vector back as a Value.
inline Value ValueAt(const Vector& v, uint32_t i) { return VectorValue(v, i); }

// A printable, comparable rendering (doubles to 9 significant digits).
inline std::string Show(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (PhysicalTypeOf(v.type())) {
    case PhysicalType::kDouble: {
      char buf[64];
      snprintf(buf, sizeof buf, "%.9g", v.GetDouble() == 0 ? 0.0 : v.GetDouble());
      return buf;
    }
    case PhysicalType::kString:
      return "'" + std::string(v.GetString()) + "'";
    case PhysicalType::kInt128:
      return decimal::FormatWide(v.GetWide(), 0) + "d" + std::to_string(v.type().scale);
    default:
      return std::to_string(v.GetInt()) +
             (v.type().id == TypeId::kDecimal ? "d" + std::to_string(v.type().scale) : "");
  }
}

inline std::string ShowRow(const Row& r) {
  std::string s;
  for (const Value& v : r) s += Show(v) + "|";
  return s;
}

inline std::vector<std::string> ChunkRows(const DataChunk& c) {
  std::vector<std::string> out;
  Rows rows = c.rows();
  for (uint32_t k = 0; k < rows.count; ++k) {
    Row r;
    for (size_t col = 0; col < c.column_count(); ++col)
      r.push_back(ValueAt(c.column(col), rows[k]));
    out.push_back(ShowRow(r));
  }
  return out;
}

}  // namespace forktail::test
