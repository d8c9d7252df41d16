#include "olap/expression/expression_executor.h"

#include <algorithm>

#include "olap/expression/kernels.h"
#include "olap/expression/scalar_function.h"
#include "storage/error.h"

namespace forktail {

struct ExpressionExecutor::Node {
  const Expression* expr = nullptr;
  std::vector<std::unique_ptr<Node>> children;
  Vector result;
  std::unique_ptr<LikeMatcher> like;
  ScalarArgs args;  // kFunction: the children's results
  SelectionVector sel_a, sel_b, sel_c;
  uint32_t filled = 0;  // kConstant: rows 0 .. filled - 1 of `result` hold it
};

namespace {

// Rows of `all` not in `taken` (both ascending) into out; returns count.
uint32_t Difference(Rows all, const uint32_t* taken, uint32_t n_taken, uint32_t* out) {
  uint32_t k = 0, j = 0;
  for (uint32_t i = 0; i < all.count; ++i) {
    uint32_t r = all[i];
    while (j < n_taken && taken[j] < r) ++j;
    if (j < n_taken && taken[j] == r) continue;
    out[k++] = r;
  }
  return k;
}

// Rows where a boolean vector is TRUE (not NULL).
uint32_t SelectTrue(const Vector& v, Rows rows, uint32_t* out, bool want = true) {
  const uint8_t* b = v.data<uint8_t>();
  const uint64_t* nulls = v.nulls();
  uint32_t k = 0;
  if (nulls == nullptr) {
    ForEachRow(rows, [&](uint32_t r) {
      out[k] = r;
      k += (b[r] != 0) == want;
    });
  } else {
    ForEachRow(rows, [&](uint32_t r) {
      out[k] = r;
      k += ((b[r] != 0) == want) & !NullAt(nulls, r);
    });
  }
  return k;
}

}  // namespace

namespace {
constexpr uint32_t kSmallFill = 64;

// A constant's vector is filled once, on first use, for as many rows as the
// first evaluation reaches (a few, or a whole chunk): an executor for a
// one-row statement then writes one small run, not kVectorSize values.
void FillConstant(ExpressionExecutor::Node& n, Rows rows) {
  uint32_t need = 0;
  if (rows.sel == nullptr) {
    need = rows.count;
  } else {
    for (uint32_t i = 0; i < rows.count; ++i) need = std::max(need, rows.sel[i] + 1);
  }
  if (need <= n.filled) return;
  const uint32_t fill = need <= kSmallFill ? kSmallFill : kVectorSize;
  ConstantKernel(n.expr->constant, Rows{nullptr, fill}, &n.result);
  n.filled = fill;
}

std::unique_ptr<ExpressionExecutor::Node> Build(const Expression& e) {
  auto n = std::make_unique<ExpressionExecutor::Node>();
  n->expr = &e;
  n->result.Reset(e.type);
  for (const auto& c : e.children) n->children.push_back(Build(*c));
  n->args.resize(e.kind == ExprKind::kFunction ? e.children.size() : 0);
  if (e.kind == ExprKind::kLike) n->like = std::make_unique<LikeMatcher>(e.pattern, e.escape);
  return n;
}
}  // namespace

ExpressionExecutor::ExpressionExecutor(const Expression& expr) : root_(Build(expr)) {}
ExpressionExecutor::~ExpressionExecutor() = default;

const Vector& ExpressionExecutor::Execute(const DataChunk& chunk, Rows rows) {
  return Eval(*root_, chunk, rows);
}

uint32_t ExpressionExecutor::Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel) {
  return SelectNode(*root_, chunk, rows, out_sel);
}

void ExpressionExecutor::Filter(DataChunk* chunk) {
  uint32_t n = Select(*chunk, chunk->rows(), chunk->selection().data());
  chunk->SetSelectionCount(n);
}

const Vector& ExpressionExecutor::Eval(Node& n, const DataChunk& chunk, Rows rows) {
  const Expression& e = *n.expr;
  Vector& out = n.result;
  if (e.kind == ExprKind::kColumnRef) return chunk.column(e.column);
  if (e.kind == ExprKind::kConstant) {
    FillConstant(n, rows);
    return out;
  }
  out.ResetAuxiliary();
  out.ClearNulls();
  switch (e.kind) {
    case ExprKind::kArith: {
      const Vector& l = Eval(*n.children[0], chunk, rows);
      const Vector& r = Eval(*n.children[1], chunk, rows);
      ArithKernel(e.arith, l, r, rows, &out);
      break;
    }
    case ExprKind::kCompare: {
      const Vector& l = Eval(*n.children[0], chunk, rows);
      const Vector& r = Eval(*n.children[1], chunk, rows);
      CompareKernel(e.compare, l, r, rows, &out);
      break;
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      // Three-valued: AND is FALSE if either is FALSE, else NULL if either
      // is NULL; OR dually.
      const Vector& l = Eval(*n.children[0], chunk, rows);
      const Vector& r = Eval(*n.children[1], chunk, rows);
      bool is_and = e.kind == ExprKind::kAnd;
      const uint8_t* a = l.data<uint8_t>();
      const uint8_t* b = r.data<uint8_t>();
      uint8_t* o = out.mutable_data<uint8_t>();
      ForEachRow(rows, [&](uint32_t i) {
        bool an = l.IsNull(i), bn = r.IsNull(i);
        bool av = a[i] != 0, bv = b[i] != 0;
        bool dominant = is_and ? ((!an && !av) || (!bn && !bv)) : ((!an && av) || (!bn && bv));
        if (dominant) {
          o[i] = is_and ? 0 : 1;
        } else if (an || bn) {
          out.SetNull(i, true);
        } else {
          o[i] = is_and ? 1 : 0;
        }
      });
      break;
    }
    case ExprKind::kNot: {
      const Vector& c = Eval(*n.children[0], chunk, rows);
      const uint8_t* a = c.data<uint8_t>();
      uint8_t* o = out.mutable_data<uint8_t>();
      ForEachRow(rows, [&](uint32_t i) { o[i] = a[i] == 0; });
      if (c.nulls() != nullptr) memcpy(out.mutable_nulls(), c.nulls(), kVectorSize / 8);
      break;
    }
    case ExprKind::kIsNull: {
      const Vector& c = Eval(*n.children[0], chunk, rows);
      uint8_t* o = out.mutable_data<uint8_t>();
      bool neg = e.negated;
      ForEachRow(rows, [&](uint32_t i) { o[i] = c.IsNull(i) != neg; });
      break;
    }
    case ExprKind::kIn:
      InKernel(Eval(*n.children[0], chunk, rows), e.in_list, e.negated, rows, &out);
      break;
    case ExprKind::kLike:
      LikeKernel(*n.like, e.negated, Eval(*n.children[0], chunk, rows), rows, &out);
      break;
    case ExprKind::kCase:
      EvalCase(n, chunk, rows);
      break;
    case ExprKind::kCast:
      CastKernel(Eval(*n.children[0], chunk, rows), rows, &out, e.zone.get());
      break;
    case ExprKind::kDateAdd:
      DateAddKernel(Eval(*n.children[0], chunk, rows), e.interval, rows, &out, e.zone.get());
      break;
    case ExprKind::kExtract:
      ExtractKernel(e.field, Eval(*n.children[0], chunk, rows), rows, &out, e.zone.get());
      break;
    case ExprKind::kSubstring: {
      const Vector& s = Eval(*n.children[0], chunk, rows);
      const Vector& st = Eval(*n.children[1], chunk, rows);
      const Vector* len = n.children.size() > 2 ? &Eval(*n.children[2], chunk, rows) : nullptr;
      SubstringKernel(s, st, len, rows, &out);
      break;
    }
    case ExprKind::kCoalesce:
      EvalCoalesce(n, chunk, rows);
      break;
    case ExprKind::kFunction:
      for (size_t i = 0; i < n.children.size(); i++) {
        n.args[i] = &Eval(*n.children[i], chunk, rows);
      }
      e.function->Execute(n.args, rows, &out);
      break;
    case ExprKind::kColumnRef:
    case ExprKind::kConstant:
      break;
  }
  // A string result may be views into its children's results (CASE and
  // COALESCE copy views, not bytes; SUBSTRING and some functions return
  // parts of their argument): it keeps their arenas alive, which the
  // children let go of at their next evaluation while this result may be
  // held on (a projected chunk, a row to insert).
  if (out.physical() == PhysicalType::kString) {
    for (const auto& child : n.children) out.ShareAuxiliary(child->result);
  }
  return out;
}

void ExpressionExecutor::EvalCase(Node& n, const DataChunk& chunk, Rows rows) {
  // `remaining` lives in sel_a; each WHEN takes its TRUE rows (sel_b) out.
  uint32_t* remaining = n.sel_a.data();
  uint32_t n_remaining = rows.count;
  for (uint32_t i = 0; i < rows.count; ++i) remaining[i] = rows[i];
  size_t n_whens = (n.children.size() - 1) / 2;
  for (size_t w = 0; w < n_whens && n_remaining > 0; ++w) {
    Rows rem{remaining, n_remaining};
    uint32_t n_true = SelectNode(*n.children[2 * w], chunk, rem, n.sel_b.data());
    if (n_true > 0) {
      Rows taken{n.sel_b.data(), n_true};
      CopyRows(Eval(*n.children[2 * w + 1], chunk, taken), taken, &n.result);
    }
    n_remaining = Difference(rem, n.sel_b.data(), n_true, n.sel_c.data());
    std::swap(n.sel_a, n.sel_c);
    remaining = n.sel_a.data();
  }
  if (n_remaining > 0) {
    Rows rem{remaining, n_remaining};
    CopyRows(Eval(*n.children.back(), chunk, rem), rem, &n.result);
  }
}

void ExpressionExecutor::EvalCoalesce(Node& n, const DataChunk& chunk, Rows rows) {
  // Each argument is evaluated only for the rows still NULL.
  uint32_t* pending = n.sel_a.data();
  uint32_t n_pending = rows.count;
  for (uint32_t i = 0; i < rows.count; ++i) pending[i] = rows[i];
  for (auto& child : n.children) {
    if (n_pending == 0) break;
    Rows p{pending, n_pending};
    const Vector& v = Eval(*child, chunk, p);
    CopyRows(v, p, &n.result);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_pending; ++i) {
      if (v.IsNull(pending[i])) pending[k++] = pending[i];
    }
    n_pending = k;
  }
}

uint32_t ExpressionExecutor::SelectNode(Node& n, const DataChunk& chunk, Rows rows,
                                        uint32_t* out_sel) {
  const Expression& e = *n.expr;
  switch (e.kind) {
    case ExprKind::kAnd: {
      uint32_t k = SelectNode(*n.children[0], chunk, rows, out_sel);
      if (k == 0) return 0;
      return SelectNode(*n.children[1], chunk, Rows{out_sel, k}, out_sel);
    }
    case ExprKind::kOr: {
      uint32_t k1 = SelectNode(*n.children[0], chunk, rows, n.sel_a.data());
      uint32_t k_rest = Difference(rows, n.sel_a.data(), k1, n.sel_b.data());
      uint32_t k2 = k_rest == 0 ? 0
                                : SelectNode(*n.children[1], chunk, Rows{n.sel_b.data(), k_rest},
                                             n.sel_c.data());
      std::merge(n.sel_a.data(), n.sel_a.data() + k1, n.sel_c.data(), n.sel_c.data() + k2, out_sel);
      return k1 + k2;
    }
    case ExprKind::kNot:
      return SelectTrue(Eval(*n.children[0], chunk, rows), rows, out_sel, false);
    case ExprKind::kCompare:
      if (n.children[1]->expr->kind == ExprKind::kConstant) {
        const Vector& l = Eval(*n.children[0], chunk, rows);
        return CompareConstantSelect(e.compare, l, n.children[1]->expr->constant, rows, out_sel);
      } else {  // column against column: no boolean vector in between
        const Vector& l = Eval(*n.children[0], chunk, rows);
        const Vector& r = Eval(*n.children[1], chunk, rows);
        return CompareSelect(e.compare, l, r, rows, out_sel);
      }
    default:
      return SelectTrue(Eval(n, chunk, rows), rows, out_sel);
  }
}

}  // namespace forktail
