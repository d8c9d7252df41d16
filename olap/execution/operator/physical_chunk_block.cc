#include "olap/execution/operator/physical_chunk_block.h"

#include <memory>
#include <new>
#include <string>

#include "olap/expression/kernels.h"

namespace forktail {

std::shared_ptr<ChunkBlock> ChunkBlock::Make(WorkOrderContext& context) {
  return std::allocate_shared<ChunkBlock>(context.allocator<ChunkBlock>(),
                                          context.allocator<DataChunk>());
}

size_t ChunkVectorBytes(const DataChunk& chunk) {
  size_t bytes = 0;
  for (size_t i = 0; i < chunk.column_count(); ++i) {
    const Vector& v = chunk.column(i);
    bytes += size_t{kVectorSize} * PhysicalWidth(v.physical()) +
             (v.nulls() != nullptr ? kVectorSize / 8 : 0);
  }
  return bytes;
}

ChunkBlockWriter::ChunkBlockWriter(WorkOrderContext& context, const char* what,
                                   std::vector<std::shared_ptr<const void>> keep_alive,
                                   size_t chunks_per_block)
    : context_(context),
      what_(what),
      keep_alive_(std::move(keep_alive)),
      chunks_per_block_(chunks_per_block) {
  Start();
}

void ChunkBlockWriter::Start() {
  block_ = ChunkBlock::Make(context_);
  block_->keep_alive = keep_alive_;
  charge_ = std::make_shared<MemoryCharge>(what_);
  charge_->Bind(context_.allocator<char>().memory());
  block_->keep_alive.push_back(charge_);
}

void ChunkBlockWriter::Add(DataChunk chunk) {
  charge_->Add(static_cast<int64_t>(ChunkVectorBytes(chunk)));  // 53200 before it is kept
  block_->chunks.push_back(std::move(chunk));
  if (block_->chunks.size() >= chunks_per_block_) Flush();
}

void ChunkBlockWriter::Flush() {
  if (block_->row_count() == 0) return;
  context_.EmitBlock(std::move(block_));
  Start();
}

uint64_t ChunkBlock::row_count() const {
  uint64_t n = 0;
  for (const DataChunk& c : chunks) n += c.count();
  return n;
}

Value VectorValue(const Vector& v, uint32_t i) {
  const Type& t = v.type();
  if (v.IsNull(i)) return Value::Null(t);
  switch (v.physical()) {
    case PhysicalType::kBool:
      return Value::Boolean(v.data<uint8_t>()[i] != 0);
    case PhysicalType::kInt16:
      return Value::SmallInt(v.data<int16_t>()[i]);
    case PhysicalType::kInt32:
      return t.id == TypeId::kDate ? Value::Date(v.data<int32_t>()[i])
                                   : Value::Integer(v.data<int32_t>()[i]);
    case PhysicalType::kInt64: {
      int64_t x = v.data<int64_t>()[i];
      if (t.id == TypeId::kDecimal) return Value::Decimal(x, t.precision, t.scale);
      if (t.id == TypeId::kTimestamp) return Value::Timestamp(x);
      if (t.id == TypeId::kTimestampTz) return Value::TimestampTz(x);
      return Value::BigInt(x);
    }
    case PhysicalType::kDouble:
      return Value::Double(v.data<double>()[i]);
    case PhysicalType::kString:
      return Value::String(t, std::string(v.data<std::string_view>()[i]));
    case PhysicalType::kInt128:
      return Value::Decimal(v.data<__int128>()[i], t.precision, t.scale);
  }
  abort();
}

void AppendChunkRows(const DataChunk& chunk, std::vector<Row>* out) {
  Rows rows = chunk.rows();
  for (uint32_t k = 0; k < rows.count; ++k) {
    Row r;
    r.reserve(chunk.column_count());
    for (size_t c = 0; c < chunk.column_count(); ++c)
      r.push_back(VectorValue(chunk.column(c), rows[k]));
    out->push_back(std::move(r));
  }
}

DataChunk CopyChunk(const DataChunk& in) {
  DataChunk out;
  Rows rows = in.rows();
  for (size_t c = 0; c < in.column_count(); ++c) {
    Vector v(in.column(c).type());
    CopyRows(in.column(c), rows, &v);
    v.ShareAuxiliary(in.column(c));
    out.AddColumn(std::move(v));
  }
  out.set_size(in.size());
  if (rows.sel != nullptr) out.SetSelection(rows.sel, rows.count);
  return out;
}

DataChunk BorrowChunk(const DataChunk& in) {
  DataChunk out;
  Rows rows = in.rows();
  for (size_t c = 0; c < in.column_count(); ++c) {
    const Vector& src = in.column(c);
    Vector v;
    if (src.physical() == PhysicalType::kString) {
      v.Reset(src.type());
      CopyRows(src, rows, &v);
      v.ShareAuxiliary(src);
    } else {
      v.WrapStripe(src.type(), src.data<char>(), src.nulls(), 0, in.size());
    }
    out.AddColumn(std::move(v));
  }
  out.set_size(in.size());
  if (rows.sel != nullptr) out.SetSelection(rows.sel, rows.count);
  return out;
}

void PackChunks(std::vector<DataChunk>* chunks) {
  std::vector<DataChunk> packed;
  for (const DataChunk& in : *chunks) {
    Rows rows = in.rows();
    for (uint32_t done = 0; done < rows.count;) {
      if (packed.empty() || packed.back().size() == kVectorSize) {
        DataChunk out;
        for (size_t c = 0; c < in.column_count(); ++c) out.AddColumn(Vector(in.column(c).type()));
        packed.push_back(std::move(out));
      }
      DataChunk& out = packed.back();
      const uint32_t n = std::min(rows.count - done, kVectorSize - out.size());
      const Rows part{rows.sel != nullptr ? rows.sel + done : nullptr, n};
      // A dense source's slice starts at `done`: gather through an offset selection.
      uint32_t dense[kVectorSize];
      if (rows.sel == nullptr) {
        for (uint32_t k = 0; k < n; ++k) dense[k] = done + k;
      }
      const Rows from = rows.sel != nullptr ? part : Rows{dense, n};
      for (size_t c = 0; c < in.column_count(); ++c) {
        GatherRows(in.column(c), from, &out.column(c), out.size(), nullptr);
        out.column(c).ShareAuxiliary(in.column(c));
      }
      out.set_size(out.size() + n);
      done += n;
    }
  }
  *chunks = std::move(packed);
}

}  // namespace forktail
