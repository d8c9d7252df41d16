#include "olap/execution/join/join_match_marks.h"

#include <algorithm>

namespace forktail {

JoinMatchMarks::JoinMatchMarks(uint64_t rows)
    : rows_(rows), marks_(new std::atomic<uint8_t>[std::max<uint64_t>(rows, 1)]) {
  for (uint64_t r = 0; r < rows; ++r) marks_[r].store(0, std::memory_order_relaxed);
}

void EmitUnmatchedBuildRows(const JoinHashTable& table, const JoinMatchMarks& marks, uint64_t begin,
                            uint64_t end, const std::vector<Type>& probe_types,
                            const std::function<void(DataChunk&)>& emit) {
  EmitBuildRows(table, marks, begin, end, /*marked=*/false, probe_types, emit);
}

void EmitBuildRows(const JoinHashTable& table, const JoinMatchMarks& marks, uint64_t begin,
                   uint64_t end, bool marked, const std::vector<Type>& probe_types,
                   const std::function<void(DataChunk&)>& emit) {
  std::vector<Type> types = probe_types;
  for (const Type& t : table.payload_types()) types.push_back(t);
  const size_t np = probe_types.size();
  std::vector<uint32_t> rows;
  rows.reserve(kVectorSize);
  auto flush = [&] {
    if (rows.empty()) return;
    const uint32_t n = static_cast<uint32_t>(rows.size());
    DataChunk out(types);
    for (size_t c = 0; c < np; ++c) {
      for (uint32_t k = 0; k < n; ++k) out.column(c).SetNull(k, true);
    }
    for (size_t c = np; c < types.size(); ++c) {
      table.GatherPayload(rows.data(), n, static_cast<uint32_t>(c - np), &out.column(c), 0);
    }
    out.set_size(n);
    emit(out);
    rows.clear();
  };
  for (uint64_t r = begin; r < end; ++r) {
    if (marks.marked(static_cast<uint32_t>(r)) != marked) continue;
    rows.push_back(static_cast<uint32_t>(r));
    if (rows.size() == kVectorSize) flush();
  }
  flush();
}

}  // namespace forktail
