// ChunkBlock: the unit of intermediate data on the edges of a physical plan.
//
// The scheduler moves opaque StreamBlockPtrs (scheduler/work_order.h); the physical
// operators put a batch of DataChunks in them — typically all the chunks one
// work order produced from one input block (a table block is up to 2 MiB,
// i.e. several kVectorSize-row chunks). The block object and its chunk array
// are allocated from the query's QueryMemory, so they count against the
// query's budget and are reclaimed when the query ends; the vectors' own
// buffers come from the kernels' Vector (plain heap; see the report).
//
// Chunks may borrow memory: a scan's vectors point into pinned table blocks,
// a select's into its input's vectors, a join's into the build's hash table.
// `keep_alive` holds whatever must live as long as this block does (pins,
// upstream ChunkBlocks, hash tables, aggregators); consumers that keep rows
// beyond the block's life must copy them.
#pragma once

#include <memory>
#include <vector>

#include "olap/common/data_chunk.h"
#include "scheduler/query_memory.h"
#include "scheduler/work_order.h"
#include "storage/value/value.h"

namespace forktail {

// Lives only behind the shared_ptr Make() returns, whose control block and
// object are allocated from the query's memory.
class ChunkBlock final : public StreamBlock {
 public:
  using Chunks = std::vector<DataChunk, QueryAllocator<DataChunk>>;

  explicit ChunkBlock(const QueryAllocator<DataChunk>& allocator) : chunks(allocator) {}

  // A new, empty block charged to the work order's query.
  static std::shared_ptr<ChunkBlock> Make(WorkOrderContext& context);

  // Live rows over all chunks.
  uint64_t row_count() const;

  Chunks chunks;
  std::vector<std::shared_ptr<const void>> keep_alive;
};

// The ChunkBlock behind a StreamBlockPtr emitted by a physical operator.
inline const ChunkBlock& AsChunkBlock(const StreamBlockPtr& block) {
  return static_cast<const ChunkBlock&>(*block);
}

// Bytes of a chunk's vectors (kVectorSize slots of each column's width, plus
// its null bitmap), as an output block's charge counts them.
size_t ChunkVectorBytes(const DataChunk& chunk);

// A work order's output written as a stream of blocks: each holds at most
// `chunks_per_block` chunks, is charged to the query ("<what> needs N more"
// past its budget) for as long as it lives, and is emitted when full, so an
// operator that multiplies rows (a cross join) neither holds its whole output
// at once nor grows past the budget uncounted. Flush() emits the rest; a
// writer dropped without it (cancel, error) emits nothing more.
class ChunkBlockWriter {
 public:
  ChunkBlockWriter(WorkOrderContext& context, const char* what,
                   std::vector<std::shared_ptr<const void>> keep_alive,
                   size_t chunks_per_block = 64);
  void Add(DataChunk chunk);
  void Flush();

 private:
  void Start();

  WorkOrderContext& context_;
  const char* what_;
  std::vector<std::shared_ptr<const void>> keep_alive_;
  size_t chunks_per_block_;
  std::shared_ptr<ChunkBlock> block_;
  std::shared_ptr<MemoryCharge> charge_;
};

// Row i (physical) of a vector as a Value of the vector's type.
Value VectorValue(const Vector& v, uint32_t i);
// The live rows of a chunk, appended to *out.
void AppendChunkRows(const DataChunk& chunk, std::vector<Row>* out);

// Copies the live rows of `in` into a new chunk of owned vectors at the same
// physical positions (selection kept). Strings stay views: the copy shares
// the source vectors' arenas, and the caller keeps any other borrowed memory
// (pins, hash tables) alive.
DataChunk CopyChunk(const DataChunk& in);
// A chunk over the same rows whose fixed-width vectors borrow in's buffers
// (no copy) and whose string vectors copy the views (not the bytes); `in`
// (or the block holding it) must outlive the result. For operators that
// filter or project a shared input block without disturbing it.
DataChunk BorrowChunk(const DataChunk& in);

// The live rows of `chunks` packed densely into as few chunks of owned
// vectors as hold them (kVectorSize rows each, no selection), in order.
// Strings stay views: the copies share the source vectors' arenas, and the
// caller keeps any other borrowed memory (pins) alive. For a scan whose
// filters kept few rows: a chunk per kVectorSize rows read would carry a
// selection, its vectors and whatever they borrow for a handful of rows.
void PackChunks(std::vector<DataChunk>* chunks);

}  // namespace forktail
