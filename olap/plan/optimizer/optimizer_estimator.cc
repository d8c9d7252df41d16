#include "olap/plan/optimizer/optimizer_estimator.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "olap/plan/logical_util.h"

namespace forktail {

namespace {

constexpr double kDefaultSelectivity = 0.25;
constexpr double kRangeSelectivity = 1.0 / 3;

// A number for range arithmetic; nullopt for strings and booleans.
std::optional<double> AsNumber(const Value& v) {
  if (v.is_null()) return std::nullopt;
  switch (v.type().id) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return static_cast<double>(v.GetInt());
    case TypeId::kDouble:
      return v.GetDouble();
    case TypeId::kDecimal:
      return static_cast<double>(v.GetWide()) / std::pow(10.0, v.type().scale);
    default:
      return std::nullopt;
  }
}

// Column ref (through casts) or null.
const Expression* StripCast(const Expression& e) {
  const Expression* p = &e;
  while (p->kind == ExprKind::kCast) p = p->children[0].get();
  return p;
}

}  // namespace

void CardinalityEstimator::LearnColumns(const LogicalOp& plan) {
  if (plan.kind == LogicalOpKind::kGet) {
    const Table* t = catalog_.FindTable(plan.table_name);
    if (t != nullptr && t->id() == plan.table_id) {
      for (size_t i = 0; i < plan.columns.size(); i++) {
        origins_[plan.columns[i].id] = {t, plan.table_columns[i]};
      }
    }
  }
  if (plan.kind == LogicalOpKind::kProject) {
    for (size_t i = 0; i < plan.columns.size() && i < plan.expressions.size(); i++) {
      const Expression& e = *plan.expressions[i];
      if (e.kind == ExprKind::kColumnRef) continue;
      ColumnSet inputs = ColumnsOf(e);
      if (!inputs.empty()) {
        computed_from_[plan.columns[i].id] = std::vector<uint32_t>(inputs.begin(), inputs.end());
      }
    }
  }
  for (const LogicalOpPtr& c : plan.children) LearnColumns(*c);
}

CardinalityEstimator::Origin CardinalityEstimator::OriginOf(uint32_t id) const {
  auto it = origins_.find(id);
  return it == origins_.end() ? Origin{} : it->second;
}

double CardinalityEstimator::Ndv(uint32_t id, double rows) const {
  Origin o = OriginOf(id);
  double ndv = rows;
  if (auto computed = computed_from_.find(id); computed != computed_from_.end()) {
    ndv = 1;
    for (uint32_t input : computed->second) ndv *= Ndv(input, rows);
  } else if (o.table != nullptr) {
    const TableStatistics& st = o.table->statistics();
    double table_rows = static_cast<double>(st.row_count());
    double d = st.column(ColumnId(static_cast<uint16_t>(o.column))).DistinctEstimate();
    if (o.table->schema().primary_key.size() == 1 &&
        o.table->schema().primary_key[0].value() == o.column) {
      d = table_rows;  // a single-column key is unique whatever HLL says
    }
    if (d < 1) d = 1;
    // Fewer rows than the table: expect fewer distinct values (uniform
    // selection keeps about d * (1 - (1 - rows/table_rows)^(table_rows/d))).
    if (table_rows > 0 && rows < table_rows) {
      double keep = rows / table_rows;
      double per_value = table_rows / d;
      d = d * (1 - std::pow(1 - keep, per_value));
    }
    ndv = d;
  }
  return std::max(1.0, std::min(ndv, std::max(rows, 1.0)));
}

double CardinalityEstimator::RangeFraction(uint32_t id, CompareOp op, const Value& c) const {
  Origin o = OriginOf(id);
  if (o.table == nullptr) return kRangeSelectivity;
  const ColumnStatistics& cs =
      o.table->statistics().column(ColumnId(static_cast<uint16_t>(o.column)));
  if (!cs.min || !cs.max) return kRangeSelectivity;
  std::optional<double> lo = AsNumber(*cs.min), hi = AsNumber(*cs.max), v = AsNumber(c);
  if (!lo || !hi || !v) {
    // Dates compared with timestamps, strings: fall back.
    return kRangeSelectivity;
  }
  // Dates in a column vs timestamp constants: compare in days.
  if (cs.min->type().id == TypeId::kDate && c.type().id == TypeId::kTimestamp) {
    *v = *v / 86'400'000'000.0;
  }
  if (*hi <= *lo) return 0.5;
  double below = std::clamp((*v - *lo) / (*hi - *lo), 0.0, 1.0);
  switch (op) {
    case CompareOp::kLt:
    case CompareOp::kLe:
      return std::max(below, 0.001);
    case CompareOp::kGt:
    case CompareOp::kGe:
      return std::max(1 - below, 0.001);
    default:
      return kRangeSelectivity;
  }
}

double CardinalityEstimator::CompareSelectivity(const Expression& e, double rows) const {
  const Expression* l = StripCast(*e.children[0]);
  const Expression* r = StripCast(*e.children[1]);
  CompareOp op = e.compare;
  if (l->kind == ExprKind::kConstant && r->kind == ExprKind::kColumnRef) {
    std::swap(l, r);
    op = FlipComparison(op);
  }
  if (l->kind == ExprKind::kColumnRef && r->kind == ExprKind::kColumnRef) {
    if (op == CompareOp::kEq) return 1 / std::max(Ndv(l->column, rows), Ndv(r->column, rows));
    if (op == CompareOp::kNe) return 0.9;
    return kRangeSelectivity;
  }
  if (l->kind == ExprKind::kColumnRef && r->kind == ExprKind::kConstant) {
    if (r->constant.is_null()) return 0;
    double ndv = Ndv(l->column, rows);
    if (op == CompareOp::kEq) return 1 / ndv;
    if (op == CompareOp::kNe) return 1 - 1 / ndv;
    return RangeFraction(l->column, op, r->constant);
  }
  if (op == CompareOp::kEq) return 0.05;
  if (op == CompareOp::kNe) return 0.95;
  return kRangeSelectivity;
}

double CardinalityEstimator::Selectivity(const Expression& e, double rows) const {
  switch (e.kind) {
    case ExprKind::kConstant:
      return IsTrueConstant(e) ? 1.0 : 0.0;
    case ExprKind::kCompare:
      return CompareSelectivity(e, rows);
    case ExprKind::kAnd: {
      double s = 1;
      for (const ExprPtr& c : e.children) s *= Selectivity(*c, rows);
      return s;
    }
    case ExprKind::kOr: {
      double s = 0;
      for (const ExprPtr& c : e.children) {
        double t = Selectivity(*c, rows);
        s = s + t - s * t;
      }
      return s;
    }
    case ExprKind::kNot:
      return 1 - Selectivity(*e.children[0], rows);
    case ExprKind::kIsNull: {
      const Expression* c = StripCast(*e.children[0]);
      double s = 0.01;
      Origin o = c->kind == ExprKind::kColumnRef ? OriginOf(c->column) : Origin{};
      if (o.table != nullptr && o.table->statistics().row_count() > 0) {
        const TableStatistics& st = o.table->statistics();
        s = static_cast<double>(st.column(ColumnId(static_cast<uint16_t>(o.column))).null_count) /
            static_cast<double>(st.row_count());
      }
      return e.negated ? 1 - s : s;
    }
    case ExprKind::kIn: {
      const Expression* c = StripCast(*e.children[0]);
      double ndv = c->kind == ExprKind::kColumnRef ? Ndv(c->column, rows) : 10;
      double s = std::min(1.0, static_cast<double>(e.in_list.size()) / ndv);
      return e.negated ? 1 - s : s;
    }
    case ExprKind::kLike: {
      bool wildcard = e.pattern.find_first_of("%_") != std::string::npos;
      const Expression* c = StripCast(*e.children[0]);
      double s = 0.1;
      if (!wildcard && c->kind == ExprKind::kColumnRef) s = 1 / Ndv(c->column, rows);
      return e.negated ? 1 - s : s;
    }
    default:
      return kDefaultSelectivity;
  }
}

double CardinalityEstimator::CoveredUniqueKeyRows(const std::vector<uint32_t>& keys) const {
  if (keys.size() < 2) return 0;  // one column: its ndv already says it is unique
  const Table* table = nullptr;
  std::vector<ColumnId> covered;
  for (uint32_t id : keys) {
    Origin o = OriginOf(id);
    if (o.table == nullptr || (table != nullptr && o.table != table)) return 0;
    table = o.table;
    covered.push_back(ColumnId(static_cast<uint16_t>(o.column)));
  }
  auto covers = [&](const std::vector<ColumnId>& key) {
    if (key.size() < 2) return false;
    for (ColumnId c : key) {
      if (std::find(covered.begin(), covered.end(), c) == covered.end()) return false;
    }
    return true;
  };
  const TableSchema& schema = table->schema();
  bool unique = covers(schema.primary_key);
  for (const IndexDef& index : schema.indexes)
    unique = unique || (index.unique && covers(index.columns));
  return unique ? std::max(1.0, static_cast<double>(table->statistics().row_count())) : 0;
}

double CardinalityEstimator::KeysSelectivity(double left_rows, double right_rows,
                                             const std::vector<uint32_t>& left_keys,
                                             const std::vector<uint32_t>& right_keys) const {
  double unique_rows = std::max(CoveredUniqueKeyRows(left_keys), CoveredUniqueKeyRows(right_keys));
  if (unique_rows > 0) return 1 / unique_rows;
  // The most selective key, then a damped share of the rest (keys of one
  // relation are rarely independent).
  std::vector<double> sels;
  for (size_t i = 0; i < left_keys.size(); i++) {
    sels.push_back(1 / std::max(Ndv(left_keys[i], left_rows), Ndv(right_keys[i], right_rows)));
  }
  std::sort(sels.begin(), sels.end());
  double s = 1;
  for (size_t i = 0; i < sels.size(); i++) s *= i == 0 ? sels[i] : std::sqrt(sels[i]);
  return s;
}

double CardinalityEstimator::JoinRows(double left_rows, double right_rows,
                                      const std::vector<uint32_t>& left_keys,
                                      const std::vector<uint32_t>& right_keys) const {
  double rows =
      left_rows * right_rows * KeysSelectivity(left_rows, right_rows, left_keys, right_keys);
  return std::max(rows, 1.0);
}

double CardinalityEstimator::Estimate(LogicalOp& op) {
  std::vector<double> in;
  for (LogicalOpPtr& c : op.children) in.push_back(Estimate(*c));
  double rows = 1;
  switch (op.kind) {
    case LogicalOpKind::kGet: {
      const Table* t = catalog_.FindTable(op.table_name);
      double base = t != nullptr ? static_cast<double>(t->statistics().row_count()) : 1000;
      rows = base;
      for (const ExprPtr& c : op.conditions) rows *= Selectivity(*c, base);
      for (const RuntimeFilterRef& f : op.runtime_filters) rows *= f.selectivity;
      break;
    }
    case LogicalOpKind::kFilter:
      rows = in[0];
      for (const ExprPtr& c : op.conditions) rows *= Selectivity(*c, in[0]);
      break;
    case LogicalOpKind::kProject:
    case LogicalOpKind::kSort:
    case LogicalOpKind::kWindow:
      rows = in[0];
      break;
    case LogicalOpKind::kLimit:
      rows = std::max(0.0, in[0] - static_cast<double>(op.offset));
      if (op.limit != kNoRowLimit) rows = std::min(rows, static_cast<double>(op.limit));
      break;
    case LogicalOpKind::kDistinct:
    case LogicalOpKind::kAggregate: {
      if (op.kind == LogicalOpKind::kAggregate && op.group_keys.empty()) {
        rows = 1;
        break;
      }
      double groups = 1;
      if (op.kind == LogicalOpKind::kAggregate) {
        for (uint32_t k : op.group_keys) groups *= Ndv(k, in[0]);
      } else {
        for (const LogicalColumn& c : op.columns) groups *= Ndv(c.id, in[0]);
      }
      rows = std::min(groups, in[0]);
      break;
    }
    case LogicalOpKind::kJoin: {
      double l = in[0], r = in[1];
      double inner = l * r;
      if (!op.left_keys.empty()) inner = JoinRows(l, r, op.left_keys, op.right_keys);
      for (const ExprPtr& c : op.conditions) inner *= Selectivity(*c, l * r);
      double match = 1.0;  // fraction of left rows with a match
      if (!op.left_keys.empty()) {
        double dl = Ndv(op.left_keys[0], l), dr = Ndv(op.right_keys[0], r);
        match = std::min(1.0, dr / dl);
      } else if (!op.conditions.empty()) {
        match = 0.5;
      }
      switch (op.join_kind) {
        case LogicalJoinKind::kSemi:
          rows = l * match;
          break;
        case LogicalJoinKind::kAnti:
        case LogicalJoinKind::kNullAwareAnti:
          rows = l * std::max(0.05, 1 - match);
          break;
        case LogicalJoinKind::kLeft:
        case LogicalJoinKind::kSingle:
          rows = std::max(inner, l);
          break;
        case LogicalJoinKind::kCross:
          rows = l * r;
          break;
        case LogicalJoinKind::kFull:  // both sides' unmatched rows come out too
          rows = std::max(inner, std::max(l, r));
          break;
        default:
          rows = inner;
          break;
      }
      break;
    }
    case LogicalOpKind::kUnion:
      rows = 0;
      for (double r : in) rows += r;
      break;
    case LogicalOpKind::kIntersect:
      rows = *std::min_element(in.begin(), in.end());
      break;
    case LogicalOpKind::kExcept:
      rows = in[0];
      break;
    case LogicalOpKind::kValues:
      rows = static_cast<double>(op.rows.size());
      break;
    case LogicalOpKind::kSeries:
      rows = static_cast<double>(op.series.count);
      break;
    case LogicalOpKind::kApply:
      rows = in[0];
      break;
    case LogicalOpKind::kTableFunction:  // unknown until expanded: a guess
      rows = 10;
      break;
    case LogicalOpKind::kRecursiveUnion:  // unknown until it has run: a guess
      rows = 100;
      break;
    case LogicalOpKind::kWorkTable:
      rows = 10;
      break;
  }
  op.estimated_rows = std::max(rows, op.kind == LogicalOpKind::kValues ? 0.0 : 1.0);
  return op.estimated_rows;
}

}  // namespace forktail
