#include "olap/execution/operator/physical_scan.h"

#include <algorithm>
#include <optional>

#include "olap/execution/operator/physical_table.h"
#include "olap/expression/kernels.h"
#include "olap/expression/scalar_function.h"
#include "storage/error.h"

namespace forktail {
namespace {

std::vector<uint32_t> AllColumns(const Table& table, std::vector<uint32_t> columns) {
  if (!columns.empty()) return columns;
  size_t n = physical::ColumnTypes(table).size();
  for (uint32_t c = 0; c < n; ++c) columns.push_back(c);
  return columns;
}

void CollectColumnRefs(const Expression& e, std::vector<bool>* used) {
  if (e.kind == ExprKind::kColumnRef && e.column < used->size()) (*used)[e.column] = true;
  for (const ExprPtr& child : e.children) CollectColumnRefs(*child, used);
}

// When a frozen block's scan decodes each read column, given the filter
// that runs on its chunks (null: none) and the runtime filters: kFirst what
// they read, kDeferred what only the projections read, kNever the rest.
// Empty (every column at once) when a runtime filter does not say what it
// reads.
std::vector<physical::ColumnDecode> DecodePlan(
    size_t columns, const Expression* filter,
    const std::vector<std::shared_ptr<const RuntimeFilter>>& runtime,
    const std::vector<ExprPtr>& projections) {
  std::vector<bool> first(columns, false);
  if (filter != nullptr) CollectColumnRefs(*filter, &first);
  for (const auto& f : runtime) {
    std::optional<std::vector<uint32_t>> read = f->ReadColumns();
    if (!read) return {};
    for (uint32_t c : *read) {
      if (c < columns) first[c] = true;
    }
  }
  std::vector<bool> later(columns, projections.empty());  // none: every column is output
  for (const ExprPtr& p : projections) CollectColumnRefs(*p, &later);
  std::vector<physical::ColumnDecode> plan(columns);
  for (size_t i = 0; i < columns; i++) {
    plan[i] = first[i]   ? physical::ColumnDecode::kFirst
              : later[i] ? physical::ColumnDecode::kDeferred
                         : physical::ColumnDecode::kNever;
  }
  return plan;
}

// The filter's top-level conjuncts `column op constant` on an integer,
// date, timestamp or narrow DECIMAL column, with a constant of exactly the
// column's type, as ranges of the column's values (one per column) and
// values it must not equal: a frozen block evaluates them on its packed
// values. The conjuncts they stand for go to *taken.
void CollectPackedPredicates(const Expression& e, std::vector<physical::PackedPredicate>* out,
                             std::vector<const Expression*>* taken) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& child : e.children) CollectPackedPredicates(*child, out, taken);
    return;
  }
  if (e.kind != ExprKind::kCompare || e.children.size() != 2) return;
  const Expression* column = e.children[0].get();
  const Expression* constant = e.children[1].get();
  CompareOp op = e.compare;
  if (column->kind == ExprKind::kConstant) {
    std::swap(column, constant);
    op = FlipComparison(op);
  }
  if (column->kind != ExprKind::kColumnRef || constant->kind != ExprKind::kConstant) return;
  const Type& type = column->type;
  const Value& v = constant->constant;
  const bool integral = type.IsInteger() || type.IsDateTime() ||
                        (type.id == TypeId::kDecimal && !type.IsWideDecimal());
  if (!integral || v.is_null() || !(v.type() == type)) return;
  static constexpr CellCompare kOps[] = {CellCompare::kEq, CellCompare::kNe, CellCompare::kLt,
                                         CellCompare::kLe, CellCompare::kGt, CellCompare::kGe};
  taken->push_back(&e);
  physical::PackedPredicate p{column->column};
  if (!CompareRange(kOps[static_cast<int>(op)], v.GetInt(), &p.lo, &p.hi)) {
    out->push_back({column->column, v.GetInt(), v.GetInt(), /*not_equal=*/true});
    return;
  }
  // Ranges on one column become one (l_shipdate >= a AND l_shipdate < b): one
  // pass over its packed values.
  for (physical::PackedPredicate& other : *out) {
    if (other.column == p.column && !other.not_equal) {
      other.lo = std::max(other.lo, p.lo);
      other.hi = std::min(other.hi, p.hi);
      return;
    }
  }
  out->push_back(p);
}

// Whether `e` reads nothing per row but column references to one column
// (*column, set by the first one met), and calls nothing volatile.
bool ReadsOneColumn(const Expression& e, std::optional<uint32_t>* column) {
  if (e.kind == ExprKind::kColumnRef) {
    if (column->has_value() && **column != e.column) return false;
    *column = e.column;
    return true;
  }
  if (e.kind == ExprKind::kFunction && e.function->is_volatile()) return false;
  for (const ExprPtr& child : e.children) {
    if (child != nullptr && !ReadsOneColumn(*child, column)) return false;
  }
  return true;
}

// The pattern of `e` when it is `column [NOT] LIKE '%a%b%'`, which a frozen
// block whose column is FSST-compressed evaluates on the codes.
std::optional<physical::ContainsPattern> ContainsPatternOf(const Expression& e) {
  if (e.kind != ExprKind::kLike || e.children[0]->kind != ExprKind::kColumnRef) return std::nullopt;
  std::optional<std::vector<std::string>> literals;
  try {
    literals = LikeMatcher(e.pattern, e.escape).ContainedLiterals();
  } catch (const DbError&) {
    return std::nullopt;  // a malformed pattern: the filter reports it
  }
  if (!literals) return std::nullopt;
  return physical::ContainsPattern{std::move(*literals), e.negated};
}

// The filter's top-level conjuncts that read one string column, which a
// frozen block evaluates on the column's dictionary (=, <>, <, IN, LIKE,
// functions of it, OR of those) or, for LIKE '%a%b%', on its FSST codes.
// Into *conjuncts, their columns into *columns, and what ContainsPatternOf
// finds into *contains. `types`: of the read columns.
void CollectStringPredicates(const Expression& e, const std::vector<Type>& types,
                             std::vector<const Expression*>* conjuncts,
                             std::vector<uint32_t>* columns,
                             std::vector<std::optional<physical::ContainsPattern>>* contains) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& child : e.children) {
      CollectStringPredicates(*child, types, conjuncts, columns, contains);
    }
    return;
  }
  std::optional<uint32_t> column;
  if (!ReadsOneColumn(e, &column) || !column.has_value() || *column >= types.size()) return;
  if (!types[*column].StoredAsString()) return;
  conjuncts->push_back(&e);
  columns->push_back(*column);
  contains->push_back(ContainsPatternOf(e));
}

// The filter without the conjuncts in `taken` (null when none is left):
// what still has to run on the rows of a block whose packed and string
// predicates decided them.
ExprPtr Residual(const Expression& e, const std::vector<const Expression*>& taken) {
  if (e.kind == ExprKind::kAnd) {
    ExprPtr left;
    for (const ExprPtr& child : e.children) {
      ExprPtr right = Residual(*child, taken);
      if (right == nullptr) continue;
      left = left == nullptr ? std::move(right) : And(std::move(left), std::move(right));
    }
    return left;
  }
  if (std::find(taken.begin(), taken.end(), &e) != taken.end()) return nullptr;
  return CloneExpr(e);
}

std::vector<Type> ReadTypes(const Table& table, const std::vector<uint32_t>& columns) {
  std::vector<Type> all = physical::ColumnTypes(table), types;
  for (uint32_t c : columns) types.push_back(all[c]);
  return types;
}

}  // namespace

TableScanOperator::TableScanOperator(const Table& table, ScanSpec spec, int parallelism)
    : PhysicalOperator("TableScan", {}, 0, parallelism),
      table_(table),
      columns_(AllColumns(table, std::move(spec.columns))),
      runtime_filters_(std::move(spec.runtime_filters)),
      runtime_filters_first_(spec.runtime_filters_first),
      index_range_(std::move(spec.index_range)),
      probed_rows_(std::move(spec.probed_rows)),
      index_join_(std::move(spec.index_join)),
      projector_(std::make_unique<Projector>(std::move(spec.filter), std::move(spec.projections),
                                             this->parallelism())) {
  const Expression* filter = projector_->filter();
  if (filter != nullptr || !runtime_filters_.empty()) {
    decode_ = DecodePlan(columns_.size(), filter, runtime_filters_, projector_->projections());
  }
  if (filter != nullptr) {
    std::vector<const Expression*> taken;
    CollectPackedPredicates(*filter, &packed_predicates_, &taken);
    CollectStringPredicates(*filter, ReadTypes(table_, columns_), &string_conjuncts_,
                            &string_columns_, &string_contains_);
    string_executors_.resize(this->parallelism());
    taken.insert(taken.end(), string_conjuncts_.begin(), string_conjuncts_.end());
    if (!taken.empty()) {
      residual_ = std::make_unique<Projector>(Residual(*filter, taken), std::vector<ExprPtr>{},
                                              this->parallelism());
      if (!decode_.empty()) {
        decided_decode_ = DecodePlan(columns_.size(), residual_->filter(), runtime_filters_,
                                     projector_->projections());
      }
    }
  }
  SetOutputTypes(projector_->OutputTypes(ReadTypes(table_, columns_)));
}

size_t TableScanOperator::MaxIndexJoinKeys(const Table& table) {
  return std::clamp<size_t>(physical::LiveRowCount(table) / kIndexJoinKeyFraction,
                            kMinIndexJoinKeys, kMaxIndexJoinKeys);
}

std::shared_ptr<const IndexRange> TableScanOperator::ProbeRange() const {
  if (index_join_ == nullptr || !index_join_->slot->published) return index_range_;
  auto range = std::make_shared<IndexRange>();
  for (const std::vector<Value>& key : index_join_->slot->keys) {
    IndexRange one = index_join_->pattern;
    bool matchable = true;
    for (size_t i = 0; i < index_join_->fill.size() && matchable; i++) {
      const auto [position, key_index] = index_join_->fill[i];
      std::optional<Value> v = CastExactly(key[key_index], index_join_->types[i]);
      if (v) one.equal[position] = std::move(*v);
      matchable = v.has_value();
    }
    if (matchable) range->any_of.push_back(std::move(one));
  }
  return range;  // any_of empty: no key can match (the caller reads nothing)
}

bool TableScanOperator::GetNextWorkOrders(WorkOrderSink& sink) {
  RowsByBlock by_block = probed_rows_;
  std::shared_ptr<const IndexRange> range = by_block == nullptr ? ProbeRange() : nullptr;
  if (range != nullptr && range != index_range_ && range->any_of.empty()) {
    return true;  // an index join whose build keys match no row
  }
  if (range != nullptr) {
    size_t limit =
        std::max<size_t>(kMinIndexProbeRows, physical::LiveRowCount(table_) / kIndexProbeFraction);
    auto found = physical::ProbeIndexByBlock(table_, *range, limit);
    if (found) by_block = std::make_shared<const RowsByBlock::element_type>(std::move(*found));
  }
  if (by_block != nullptr) {
    size_t total = 0;
    for (const auto& [block, rows] : *by_block) total += rows.size();
    if (total <= kVectorSize) {
      SpawnWithSlot(sink, [this, by_block](WorkOrderContext& context, int slot) {
        std::vector<DataChunk> chunks;
        chunks.push_back(physical::GatherTableRows(table_, *by_block, columns_));
        if (chunks.back().count() > 0) ProcessChunks(context, slot, std::move(chunks), nullptr);
      });
      return true;
    }
    for (const auto& [block, rows] : *by_block) {
      SpawnWithSlot(
          sink, [this, by_block, block = block, rows = &rows](WorkOrderContext& context, int slot) {
            ScanBlock(context, slot, block, rows);
          });
    }
    return true;
  }
  const size_t blocks = physical::BlockCount(table_);
  for (size_t b = 0; b < blocks; ++b) {
    SpawnWithSlot(sink, [this, b](WorkOrderContext& context, int slot) {
      ScanBlock(context, slot, static_cast<uint32_t>(b));
    });
  }
  return true;
}

void TableScanOperator::ScanBlock(WorkOrderContext& context, int slot, uint32_t block_no,
                                  const std::vector<uint32_t>* rows) {
  std::vector<DataChunk> chunks;
  physical::StringPredicates strings;
  if (!string_conjuncts_.empty()) {
    strings.columns = &string_columns_;
    strings.contains = &string_contains_;
    strings.select = [this, slot](size_t i, const DataChunk& strings, uint32_t* sel) {
      auto& executors = string_executors_[slot];
      if (executors.empty()) {
        for (const Expression* e : string_conjuncts_) {
          executors.push_back(std::make_unique<ExpressionExecutor>(*e));
        }
      }
      return executors[i]->Select(strings, strings.rows(), sel);
    };
  }
  physical::FrozenScan frozen;
  if (!decode_.empty()) frozen.decode = &decode_;
  if (!decided_decode_.empty()) frozen.decided_decode = &decided_decode_;
  frozen.predicates = &packed_predicates_;
  if (strings.columns != nullptr) frozen.strings = &strings;
  std::shared_ptr<const void> pin =
      physical::WrapTableBlock(table_, block_no, columns_, &chunks, rows, &frozen);
  if (pin == nullptr) return;
  ProcessChunks(context, slot, std::move(chunks), std::move(pin), &frozen);
}

void TableScanOperator::ProcessChunks(WorkOrderContext& context, int slot,
                                      std::vector<DataChunk> chunks,
                                      std::shared_ptr<const void> pin,
                                      const physical::FrozenScan* frozen) {
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  const bool decided = frozen != nullptr && frozen->decided;
  Projector& filter = decided && residual_ != nullptr ? *residual_ : *projector_;
  // The chunks of a frozen block whose plan leaves columns to decode now.
  const std::vector<physical::ColumnDecode>* plan =
      frozen != nullptr && !frozen->firsts.empty() ? frozen->plan : nullptr;
  // False once the chunk has no row left.
  auto runtime_filter = [&](DataChunk& chunk) {
    for (const auto& f : runtime_filters_) {
      uint32_t n = f->Select(chunk, chunk.rows(), chunk.selection().data());
      chunk.SetSelectionCount(n);
      if (n == 0) return false;
    }
    return true;
  };
  std::vector<DataChunk> kept;
  uint64_t rows_read = 0, rows_kept = 0;
  for (size_t i = 0; i < chunks.size(); i++) {
    DataChunk& chunk = chunks[i];
    rows_read += chunk.size();
    if (runtime_filters_first_ && !runtime_filter(chunk)) continue;
    if (!filter.Filter(slot, &chunk)) continue;
    if (!runtime_filters_first_ && !runtime_filter(chunk)) continue;
    if (plan != nullptr) physical::DecodeDeferred(pin, columns_, *plan, frozen->firsts[i], &chunk);
    rows_kept += chunk.count();
    kept.push_back(projector_->Project(slot, std::move(chunk)));
  }
  // Few rows kept: pack them, so that the block's output does not hold a
  // chunk, a selection and (for a frozen block) the decoded columns per
  // kVectorSize rows read while it waits downstream, e.g. for a join's build.
  if (kept.size() > 1 && rows_kept * kSparseOutput <= rows_read) {
    PackChunks(&kept);
    if (pin != nullptr) pin = physical::WithoutDecoded(pin);
  }
  if (pin != nullptr) out->keep_alive.push_back(std::move(pin));
  for (DataChunk& chunk : kept) out->chunks.push_back(std::move(chunk));
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
