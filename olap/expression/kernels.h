// Type-specialized per-vector kernels behind ExpressionExecutor (internal to
// olap). Each takes the rows to compute and writes results at the same
// physical positions of an owned output vector; the NULL bitmap of the
// output is set for those rows.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/expression/expression.h"

namespace forktail {

// The order of a type held as bytes whose order is not its bytes': jsonb
// (storage/value/jsonb.h) and arrays (storage/value/array_text.h). Every
// comparison of such values (kernels, sort, min/max) goes through it.
struct OwnOrder {
  std::optional<Type> array_element;  // empty: jsonb
  int operator()(std::string_view a, std::string_view b) const;
};
std::optional<OwnOrder> OwnOrderOf(const Type& type);

void ArithKernel(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out);
// Boolean result (three-valued: NULL if either side is NULL).
void CompareKernel(CompareOp op, const Vector& l, const Vector& r, Rows rows, Vector* out);
// Filter form against a constant: rows where `l op c` is TRUE.
uint32_t CompareConstantSelect(CompareOp op, const Vector& l, const Value& c, Rows rows,
                               uint32_t* out_sel);
// Filter form of CompareKernel: rows where `l op r` is TRUE.
uint32_t CompareSelect(CompareOp op, const Vector& l, const Vector& r, Rows rows,
                       uint32_t* out_sel);
// `zone`: the session's, for casts between timestamptz and text, timestamp
// or date (null: UTC).
void CastKernel(const Vector& in, Rows rows, Vector* out, const datetime::TimeZone* zone = nullptr);
void ConstantKernel(const Value& c, Rows rows, Vector* out);
void InKernel(const Vector& in, const std::vector<Value>& list, bool negated, Rows rows,
              Vector* out);
void DateAddKernel(const Vector& in, const Interval& iv, Rows rows, Vector* out,
                   const datetime::TimeZone* zone = nullptr);
void ExtractKernel(DateField field, const Vector& in, Rows rows, Vector* out,
                   const datetime::TimeZone* zone = nullptr);
void SubstringKernel(const Vector& s, const Vector& start, const Vector* len, Rows rows,
                     Vector* out);
// Copies rows of `in` (same type) into out.
void CopyRows(const Vector& in, Rows rows, Vector* out);

// out[out_offset + k] = in[rows[k]] (dense append); strings are copied
// into `arena` when it is not null.
void GatherRows(const Vector& in, Rows rows, Vector* out, uint32_t out_offset, StringArena* arena);

// LIKE matching (pattern compiled once per executor).
class LikeMatcher {
 public:
  LikeMatcher(std::string_view pattern, char escape);
  bool Match(std::string_view s) const;
  // The literals a matching string holds in this order, when that is all
  // the pattern asks ('%a%b%': it starts and ends with '%' and has no '_').
  std::optional<std::vector<std::string>> ContainedLiterals() const;

 private:
  bool MatchSegments(std::string_view s) const;

  enum class Shape { kExact, kPrefix, kSuffix, kContains, kSegments, kGeneral };
  Shape shape_ = Shape::kGeneral;
  std::string literal_;                // for the simple shapes
  std::vector<std::string> segments_;  // kSegments: the literals between '%'s
  bool anchored_start_ = false, anchored_end_ = false;
  std::string pattern_;         // normalized: escapes resolved into a token stream
  std::vector<uint8_t> kinds_;  // per pattern_ byte: 0 literal, 1 '_', 2 '%'
};

void LikeKernel(const LikeMatcher& m, bool negated, const Vector& in, Rows rows, Vector* out);

}  // namespace forktail
