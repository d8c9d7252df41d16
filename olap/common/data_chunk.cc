#include "olap/common/data_chunk.h"

namespace forktail {

DataChunk::DataChunk(const std::vector<Type>& types) {
  for (const Type& t : types) columns_.emplace_back(t);
}

void DataChunk::SetSelection(const uint32_t* sel, uint32_t count) {
  memcpy(sel_.data(), sel, count * sizeof(uint32_t));
  SetSelectionCount(count);
}

}  // namespace forktail
