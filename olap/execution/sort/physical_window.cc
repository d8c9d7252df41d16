#include "olap/execution/sort/physical_window.h"

#include <utility>

namespace forktail {
namespace {

std::vector<Type> OutputTypes(std::vector<Type> in, const PhysicalWindowSpec& spec) {
  for (const WindowFunction& f : spec.functions) in.push_back(f.type);
  return in;
}

std::vector<SortKey> SorterKeys(const PhysicalWindowSpec& spec) {
  std::vector<SortKey> keys;
  for (uint32_t c : spec.partition) keys.push_back(SortKey::Postgres(c, false));
  for (const PhysicalSortKey& k : spec.order) {
    SortKey key = SortKey::Postgres(k.column, k.descending);
    if (k.nulls_first >= 0) key.nulls_first = k.nulls_first == 1;
    keys.push_back(key);
  }
  return keys;
}

size_t ChunkBytes(const DataChunk& c) {
  size_t bytes = 0;
  for (size_t i = 0; i < c.column_count(); ++i) {
    bytes += size_t{kVectorSize} * PhysicalWidth(c.column(i).physical()) + kVectorSize / 8;
  }
  return bytes;
}

}  // namespace

WindowOperator::WindowOperator(std::vector<Type> input_types, PhysicalWindowSpec spec,
                               int parallelism)
    : PhysicalOperator("Window", OutputTypes(input_types, spec), 1, parallelism),
      spec_(std::move(spec)),
      sorter_(std::make_shared<Sorter>(std::move(input_types), SorterKeys(spec_))) {}

void WindowOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                  const StreamBlockPtr& block) {
  runs_charge_.Bind(context.allocator<char>().memory());
  for (const DataChunk& in : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    runs_charge_.Add(sorter_->AddRun(in));
  }
}

bool WindowOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (!evaluating_) {
    evaluating_ = true;
    Spawn(sink, [this](WorkOrderContext& context) { Evaluate(context); });
  }
  return true;
}

void WindowOperator::Evaluate(WorkOrderContext& context) {
  std::vector<DataChunk> sorted = sorter_->Merge();
  if (sorted.empty()) return;
  auto charge = std::make_shared<MemoryCharge>("window output");
  charge->Bind(context.allocator<char>().memory());
  size_t rows = 0, in_bytes = 0;
  for (const DataChunk& c : sorted) {
    rows += c.count();
    in_bytes += ChunkBytes(c);
  }
  // The evaluation's flat copies: keys and arguments (up to 16 bytes and a
  // NULL flag per value) and the per-row bounds (16 bytes per row).
  size_t flat_cols = spec_.partition.size() + spec_.order.size();
  for (const WindowFunction& f : spec_.functions) flat_cols += f.args.size() + 1;
  charge->Set(in_bytes + rows * (17 * flat_cols + 16));
  std::vector<std::vector<Vector>> results = EvaluateWindow(
      sorted, spec_.partition,
      [&] {
        std::vector<uint32_t> order;
        for (const PhysicalSortKey& k : spec_.order) order.push_back(k.column);
        return order;
      }(),
      spec_.functions);
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  size_t out_bytes = 0;
  for (size_t ci = 0; ci < sorted.size(); ++ci) {
    DataChunk& c = sorted[ci];
    for (std::vector<Vector>& r : results) c.AddColumn(std::move(r[ci]));
    out_bytes += ChunkBytes(c);
    out->chunks.push_back(std::move(c));
  }
  charge->Set(out_bytes);
  out->keep_alive.push_back(std::move(charge));
  // Strings are views into the runs: the block keeps the sorter.
  out->keep_alive.push_back(sorter_);
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
