#include "olap/common/data_chunk.h"

namespace forktail {

DataChunk::DataChunk(const std::vector<Type>& types) {
  for (const Type& t : types) columns_.emplace_back(t);
}

void DataChunk::SetSelection(const uint32_t* sel, uint32_t count) {
  memcpy(sel_.data(), sel, count * sizeof(uint32_t));
  SetSelectionCount(count);
}

// Row i of an owned vector := v (v already of the vector's type).
void SetVectorValue(Vector& vec, uint32_t i, const Value& v) {
  if (v.is_null()) {
    vec.SetNull(i, true);
    return;
  }
  switch (vec.physical()) {
    case PhysicalType::kBool:
      vec.mutable_data<uint8_t>()[i] = v.GetBool() ? 1 : 0;
      return;
    case PhysicalType::kInt16:
      vec.mutable_data<int16_t>()[i] = static_cast<int16_t>(v.GetInt());
      return;
    case PhysicalType::kInt32:
      vec.mutable_data<int32_t>()[i] = static_cast<int32_t>(v.GetInt());
      return;
    case PhysicalType::kInt64:
      vec.mutable_data<int64_t>()[i] = v.GetInt();
      return;
    case PhysicalType::kDouble:
      vec.mutable_data<double>()[i] = v.GetDouble();
      return;
    case PhysicalType::kString:
      vec.mutable_data<std::string_view>()[i] = vec.arena()->Add(v.GetString());
      return;
    case PhysicalType::kInt128:
      vec.mutable_data<__int128>()[i] = v.GetWide();
      return;
  }
}

DataChunk ChunkOfRows(const std::vector<Type>& types, const std::vector<Row>& rows) {
  DataChunk chunk(types);
  for (size_t c = 0; c < types.size(); c++) {
    Vector& vec = chunk.column(c);
    for (size_t r = 0; r < rows.size(); r++)
      SetVectorValue(vec, static_cast<uint32_t>(r), rows[r][c]);
  }
  chunk.set_size(static_cast<uint32_t>(rows.size()));
  return chunk;
}

}  // namespace forktail
