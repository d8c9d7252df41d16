#include "olap/execution/operator/physical_projector.h"

#include "olap/expression/kernels.h"

namespace forktail {

Projector::Projector(ExprPtr filter, std::vector<ExprPtr> projections, int slots)
    : filter_(std::move(filter)), projections_(std::move(projections)), slots_(slots) {}

std::vector<Type> Projector::OutputTypes(const std::vector<Type>& input_types) const {
  if (projections_.empty()) return input_types;
  std::vector<Type> types;
  for (const ExprPtr& p : projections_) types.push_back(p->type);
  return types;
}

Projector::Slot& Projector::GetSlot(int slot) {
  Slot& s = slots_[slot];
  if (s.projections.size() != projections_.size()) {
    if (filter_ != nullptr) s.filter = std::make_unique<ExpressionExecutor>(*filter_);
    for (const ExprPtr& p : projections_) {
      s.projections.push_back(std::make_unique<ExpressionExecutor>(*p));
    }
  } else if (filter_ != nullptr && s.filter == nullptr) {
    s.filter = std::make_unique<ExpressionExecutor>(*filter_);
  }
  return s;
}

bool Projector::Filter(int slot, DataChunk* chunk) {
  if (filter_ != nullptr && chunk->count() > 0) GetSlot(slot).filter->Filter(chunk);
  return chunk->count() > 0;
}

DataChunk Projector::Project(int slot, DataChunk in) {
  if (projections_.empty()) return in;
  Slot& s = GetSlot(slot);
  const Rows rows = in.rows();
  const size_t n = projections_.size();
  std::vector<Vector> cols(n);
  std::vector<bool> filled(n, false);
  // Computed expressions first: they read the input columns, which the
  // column references below may move away.
  for (size_t p = 0; p < n; ++p) {
    if (projections_[p]->kind == ExprKind::kColumnRef) continue;
    const Vector& r = s.projections[p]->Execute(in, rows);
    cols[p].Reset(projections_[p]->type);
    CopyRows(r, rows, &cols[p]);
    cols[p].ShareAuxiliary(r);
    // Results may be views into input strings (SUBSTRING): keep those too.
    for (size_t c = 0; c < in.column_count(); ++c) cols[p].ShareAuxiliary(in.column(c));
    filled[p] = true;
  }
  std::vector<int> moved_to(in.column_count(), -1);
  for (size_t p = 0; p < n; ++p) {
    if (filled[p]) continue;
    uint32_t c = projections_[p]->column;
    if (moved_to[c] < 0) {
      cols[p] = std::move(in.column(c));
      moved_to[c] = static_cast<int>(p);
    } else {
      const Vector& src = cols[moved_to[c]];
      cols[p].Reset(src.type());
      CopyRows(src, rows, &cols[p]);
      cols[p].ShareAuxiliary(src);
    }
  }
  DataChunk out;
  for (Vector& v : cols) out.AddColumn(std::move(v));
  out.set_size(in.size());
  if (rows.sel != nullptr) out.SetSelection(rows.sel, rows.count);
  return out;
}

}  // namespace forktail
