// Comparison and IN-list kernels.
#include <algorithm>
#include <unordered_set>

#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "storage/value/array_text.h"
#include "storage/value/jsonb.h"

namespace forktail {
namespace {

template <CompareOp Op, typename T>
inline bool Cmp(const T& a, const T& b) {
  if constexpr (Op == CompareOp::kEq) return a == b;
  if constexpr (Op == CompareOp::kNe) return a != b;
  if constexpr (Op == CompareOp::kLt) return a < b;
  if constexpr (Op == CompareOp::kLe) return a <= b;
  if constexpr (Op == CompareOp::kGt) return a > b;
  if constexpr (Op == CompareOp::kGe) return a >= b;
}

template <typename F>
decltype(auto) DispatchOp(CompareOp op, F&& f) {
  switch (op) {
    case CompareOp::kEq:
      return f.template operator()<CompareOp::kEq>();
    case CompareOp::kNe:
      return f.template operator()<CompareOp::kNe>();
    case CompareOp::kLt:
      return f.template operator()<CompareOp::kLt>();
    case CompareOp::kLe:
      return f.template operator()<CompareOp::kLe>();
    case CompareOp::kGt:
      return f.template operator()<CompareOp::kGt>();
    case CompareOp::kGe:
      return f.template operator()<CompareOp::kGe>();
  }
  abort();
}

// CHAR comparisons ignore trailing blanks; `trim` is decided per vector.
template <typename T>
inline T Load(const T* a, uint32_t i, bool trim) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return trim ? TrimTrailingBlanks(a[i]) : a[i];
  } else {
    (void)trim;
    return a[i];
  }
}

template <typename T>
T ConstantAs(const Value& c) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return c.GetString();
  } else if constexpr (std::is_same_v<T, double>) {
    return c.GetDouble();
  } else {
    return static_cast<T>(c.GetWide());  // GetInt() widened; a wide DECIMAL's __int128
  }
}

bool Holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq:
      return c == 0;
    case CompareOp::kNe:
      return c != 0;
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLe:
      return c <= 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGe:
      return c >= 0;
  }
  abort();
}

}  // namespace

int OwnOrder::operator()(std::string_view a, std::string_view b) const {
  int c = array_element ? CompareArrayText(a, b, *array_element) : jsonb::Compare(a, b);
  return (c > 0) - (c < 0);
}

std::optional<OwnOrder> OwnOrderOf(const Type& type) {
  if (type.id == TypeId::kJsonb) return OwnOrder{};
  if (type.IsArrayText()) return OwnOrder{type.ArrayElement()};
  return std::nullopt;
}

void CompareKernel(CompareOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  UnionNulls(l, &r, rows, out);
  if (std::optional<OwnOrder> order = OwnOrderOf(l.type())) {
    const auto* a = l.data<std::string_view>();
    const auto* b = r.data<std::string_view>();
    uint8_t* o = out->mutable_data<uint8_t>();
    const uint64_t* nulls = out->nulls();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = Holds(op, (*order)(a[i], b[i]));
    });
    return;
  }
  bool trim = l.type().id == TypeId::kChar || r.type().id == TypeId::kChar;
  uint8_t* o = out->mutable_data<uint8_t>();
  DispatchPhysical(l.physical(), [&]<typename T>() {
    const T* a = l.data<T>();
    const T* b = r.data<T>();
    const uint64_t* nulls = out->nulls();
    DispatchOp(op, [&]<CompareOp Op>() {
      if (std::is_same_v<T, std::string_view> && nulls != nullptr) {
        // String bytes under a NULL may be gone: never read them.
        ForEachRow(rows, [&](uint32_t i) {
          if (!NullAt(nulls, i)) o[i] = Cmp<Op, T>(Load(a, i, trim), Load(b, i, trim));
        });
        return;
      }
      ForEachRow(rows, [&](uint32_t i) { o[i] = Cmp<Op, T>(Load(a, i, trim), Load(b, i, trim)); });
    });
  });
}

uint32_t CompareConstantSelect(CompareOp op, const Vector& l, const Value& c, Rows rows,
                               uint32_t* out_sel) {
  if (c.is_null()) return 0;
  bool trim = l.type().id == TypeId::kChar;
  const uint64_t* nulls = l.nulls();
  if (std::optional<OwnOrder> order = OwnOrderOf(l.type())) {
    const auto* a = l.data<std::string_view>();
    uint32_t k = 0;
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i) && Holds(op, (*order)(a[i], c.GetString()))) out_sel[k++] = i;
    });
    return k;
  }
  return DispatchPhysical(l.physical(), [&]<typename T>() -> uint32_t {
    const T* a = l.data<T>();
    T v = ConstantAs<T>(c);
    if constexpr (std::is_same_v<T, std::string_view>) {
      if (trim) v = TrimTrailingBlanks(v);
    }
    return DispatchOp(op, [&]<CompareOp Op>() -> uint32_t {
      uint32_t k = 0;
      // Branch-free: write every candidate, advance on a match.
      if (nulls == nullptr) {
        ForEachRow(rows, [&](uint32_t i) {
          out_sel[k] = i;
          k += Cmp<Op, T>(Load(a, i, trim), v);
        });
      } else {
        ForEachRow(rows, [&](uint32_t i) {
          out_sel[k] = i;
          if constexpr (std::is_same_v<T, std::string_view>) {
            k += !NullAt(nulls, i) && Cmp<Op, T>(Load(a, i, trim), v);
          } else {
            k += Cmp<Op, T>(Load(a, i, trim), v) & !NullAt(nulls, i);
          }
        });
      }
      return k;
    });
  });
}

uint32_t CompareSelect(CompareOp op, const Vector& l, const Vector& r, Rows rows,
                       uint32_t* out_sel) {
  const uint64_t* ln = l.nulls();
  const uint64_t* rn = r.nulls();
  if (std::optional<OwnOrder> order = OwnOrderOf(l.type())) {
    const auto* a = l.data<std::string_view>();
    const auto* b = r.data<std::string_view>();
    uint32_t k = 0;
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(ln, i) && !NullAt(rn, i) && Holds(op, (*order)(a[i], b[i]))) {
        out_sel[k++] = i;
      }
    });
    return k;
  }
  const bool trim = l.type().id == TypeId::kChar || r.type().id == TypeId::kChar;
  return DispatchPhysical(l.physical(), [&]<typename T>() -> uint32_t {
    const T* a = l.data<T>();
    const T* b = r.data<T>();
    return DispatchOp(op, [&]<CompareOp Op>() -> uint32_t {
      uint32_t k = 0;
      // Branch-free as CompareConstantSelect; string bytes under a NULL may
      // be gone, so those rows are never compared.
      if (ln == nullptr && rn == nullptr) {
        ForEachRow(rows, [&](uint32_t i) {
          out_sel[k] = i;
          k += Cmp<Op, T>(Load(a, i, trim), Load(b, i, trim));
        });
      } else {
        ForEachRow(rows, [&](uint32_t i) {
          out_sel[k] = i;
          const bool valid = !NullAt(ln, i) && !NullAt(rn, i);
          if constexpr (std::is_same_v<T, std::string_view>) {
            k += valid && Cmp<Op, T>(Load(a, i, trim), Load(b, i, trim));
          } else {
            k += Cmp<Op, T>(Load(a, i, trim), Load(b, i, trim)) & valid;
          }
        });
      }
      return k;
    });
  });
}

void InKernel(const Vector& in, const std::vector<Value>& list, bool negated, Rows rows,
              Vector* out) {
  // x IN (list): TRUE on a match; else NULL if x or any list item is NULL;
  // else FALSE. NOT IN negates TRUE/FALSE and keeps NULL.
  bool list_has_null =
      std::any_of(list.begin(), list.end(), [](const Value& v) { return v.is_null(); });
  bool trim = in.type().id == TypeId::kChar;
  UnionNulls(in, nullptr, rows, out);
  uint8_t* o = out->mutable_data<uint8_t>();
  DispatchPhysical(in.physical(), [&]<typename T>() {
    std::vector<T> consts;
    for (const Value& v : list) {
      if (v.is_null()) continue;
      T c = ConstantAs<T>(v);
      if constexpr (std::is_same_v<T, std::string_view>) {
        if (trim) c = TrimTrailingBlanks(c);
      }
      consts.push_back(c);
    }
    std::sort(consts.begin(), consts.end());
    const T* a = in.data<T>();
    auto decide = [&](bool found, uint32_t i) {
      if (!found && list_has_null) {
        out->SetNull(i, true);
      } else {
        o[i] = found != negated;
      }
    };
    if (consts.size() <= 8) {
      ForEachRow(rows, [&](uint32_t i) {
        if (in.IsNull(i)) return;
        T x = Load(a, i, trim);
        bool found = false;
        for (const T& c : consts) found |= (x == c);
        decide(found, i);
      });
    } else {
      ForEachRow(rows, [&](uint32_t i) {
        if (in.IsNull(i)) return;
        decide(std::binary_search(consts.begin(), consts.end(), Load(a, i, trim)), i);
      });
    }
  });
}

}  // namespace forktail
