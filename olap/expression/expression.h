// Bound expressions: the typed tree the binder hands the physical operators.
//
// Every node knows its result Type. The factory functions below apply SQL's
// typing rules at bind time and insert implicit casts, so each kernel sees
// operands of ONE physical type and is a single template instantiation with
// no per-value dispatch:
//   integers:  the wider of the two (SMALLINT < INTEGER < BIGINT); overflow
//              raises 22003 "<type> out of range";
//   DOUBLE:    if either side is DOUBLE;
//   DECIMAL:   if either side is DECIMAL (integers become DECIMAL(5|10|18,0));
//              result types and exact arithmetic are storage/value/decimal.h's
//              (AddResultType, ..., decimal::Add/Sub/Mul/Div/Mod); overflow
//              22003 "numeric field overflow";
//   / and % by zero raise 22012 "division by zero" (also for DOUBLE, as in
//   PostgreSQL); integer division truncates toward zero.
// Comparisons bring both sides to the common type the same way. Booleans use
// SQL three-valued logic: NULL AND FALSE = FALSE, NULL OR TRUE = TRUE.
//
// Time zones: TIMESTAMP WITH TIME ZONE values are instants; the nodes whose
// result depends on the session's TimeZone (casts between timestamptz and
// text, timestamp or date; timestamptz +/- interval; EXTRACT from one) take
// the thread's current zone (datetime::CurrentTimeZone, which the session
// sets while it binds) into `zone` when they are made, so that kernels on
// any thread compute with the statement's zone.
//
// Dates, as PostgreSQL: date/timestamp +/- interval yields TIMESTAMP (the
// binder compares a DATE column with a constant TIMESTAMP as a DATE bound
// when that is exact, so zone maps still apply); date +/- integer yields
// DATE and date - date INTEGER days (scalar functions date_pli/date_mii/
// date_mi, olap/expression/functions_datetime.cc); timestamp - timestamp would be an
// interval, which is no value type here (0A000). Month arithmetic
// clamps to the month's last day (datetime::AddMonthsToDate/AddInterval).
// EXTRACT yields BIGINT (PostgreSQL: numeric); SECOND and EPOCH are truncated
// to whole seconds (datetime::Extract).
//
// Strings: comparisons are bytewise; CHAR(n) values compare with trailing
// blanks ignored. SUBSTRING counts bytes (ASCII data; UTF-8 code points are
// not yet counted). LIKE supports % _ and an escape character (default '\').
//
// Scalar functions (abs, round, upper, ||, ~, now(), ...) are kFunction
// nodes over a ScalarFunction from the FunctionRegistry
// (olap/expression/scalar_function.h), which documents resolution and NULL handling.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/value/datetime.h"
#include "storage/value/timezone.h"
#include "storage/value/value.h"

namespace forktail {

enum class ExprKind : uint8_t {
  kColumnRef,
  kConstant,
  kArith,
  kCompare,
  kAnd,
  kOr,
  kNot,
  kIsNull,  // negated: IS NOT NULL
  kIn,      // negated: NOT IN
  kLike,    // negated: NOT LIKE
  kCase,    // children: cond0, result0, cond1, result1, ..., else
  kCast,
  kDateAdd,  // child +/- interval
  kExtract,
  kSubstring,  // children: string, start[, length]
  kCoalesce,
  kFunction,  // a ScalarFunction (olap/expression/scalar_function.h) over the children
};

enum class ArithOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod };
enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
// Date semantics come from the storage module (storage/value/datetime.h).
using DateField = datetime::DateField;
using Interval = datetime::Interval;

struct Expression;
class ScalarFunction;
using ExprPtr = std::unique_ptr<Expression>;

struct Expression {
  ExprKind kind = ExprKind::kConstant;
  Type type;
  std::vector<ExprPtr> children;

  uint32_t column = 0;  // kColumnRef: index into the input chunk
  Value constant;       // kConstant
  ArithOp arith = ArithOp::kAdd;
  CompareOp compare = CompareOp::kEq;
  bool negated = false;        // IS NOT NULL, NOT IN, NOT LIKE
  std::vector<Value> in_list;  // kIn: constants of the child's type
  std::string pattern;         // kLike
  char escape = '\\';          // kLike; 0 = none
  Interval interval;           // kDateAdd (already negated for '-')
  DateField field = DateField::kYear;
  std::shared_ptr<const ScalarFunction> function;  // kFunction
  datetime::TimeZonePtr zone;                      // zone-dependent kCast / kDateAdd / kExtract
  // kConstant bound from $n while BindOptions::tag_parameters was set: n
  // (olap/session/statement/parameter_template.h puts another value there);
  // 0 otherwise. Evaluation never reads it.
  uint16_t parameter = 0;
};

ExprPtr ColumnRef(uint32_t column, const Type& type);
ExprPtr Constant(Value v);
ExprPtr Arith(ArithOp op, ExprPtr left, ExprPtr right);
ExprPtr Compare(CompareOp op, ExprPtr left, ExprPtr right);
// "=", "<>", "<", "<=", ">", ">=".
const char* CompareSymbol(CompareOp op);
// The operator with its operands swapped: a < b  <=>  b > a.
CompareOp FlipComparison(CompareOp op);
ExprPtr And(ExprPtr left, ExprPtr right);
ExprPtr Or(ExprPtr left, ExprPtr right);
ExprPtr Not(ExprPtr child);
ExprPtr IsNull(ExprPtr child, bool negated = false);
// The list's values are cast to the child's type (constants only).
ExprPtr In(ExprPtr child, std::vector<Value> list, bool negated = false);
ExprPtr Like(ExprPtr child, std::string pattern, bool negated = false, char escape = '\\');
// CASE WHEN c0 THEN r0 ... ELSE e END; else_result may be null (ELSE NULL).
ExprPtr Case(std::vector<std::pair<ExprPtr, ExprPtr>> whens, ExprPtr else_result);
ExprPtr Cast(ExprPtr child, const Type& target);
// date or timestamp +/- interval: TIMESTAMP; timestamptz +/- interval: TIMESTAMPTZ.
ExprPtr DateAdd(ExprPtr child, Interval interval, bool subtract = false);
ExprPtr Extract(DateField field, ExprPtr child);
// SUBSTRING(s FROM start [FOR length]); length may be null.
ExprPtr Substring(ExprPtr s, ExprPtr start, ExprPtr length);
ExprPtr Coalesce(std::vector<ExprPtr> args);
// A call of a bound scalar function (its result type is the node's type).
ExprPtr Function(std::shared_ptr<const ScalarFunction> function, std::vector<ExprPtr> args);

// A deep copy of `e`.
ExprPtr CloneExpr(const Expression& e);

// The DECIMAL an integer or decimal operand is taken as: SMALLINT (5,0),
// INTEGER (10,0), BIGINT (19,0); a DECIMAL is itself.
Type DecimalDigits(const Type& t);

// The type both operands are brought to for arithmetic / comparison.
// Throws DbError 42804 for incompatible types.
Type CommonType(const Type& a, const Type& b, bool for_arith);
// Numeric types by width: SMALLINT 1 < INTEGER 2 < BIGINT 3 < DECIMAL 4 <
// DOUBLE 5; 0 for the others.
int NumericRank(TypeId id);

}  // namespace forktail
