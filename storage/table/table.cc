#include "storage/table/table.h"

#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "storage/error.h"
#include "storage/table/cell.h"

namespace forktail {

namespace {

// The capacity a block image's header names (its layout's), 0 if the image
// is too short to have one (FromImage then refuses it).
uint32_t ImageCapacity(std::string_view image) {
  if (image.size() < sizeof(BlockHeader)) return 0;
  BlockHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  return h.capacity;
}

Status CapacityDoesNotFit(std::string_view image, uint32_t capacity) {
  BlockHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  return Status::Corruption(
      fmt::format("block image {}: capacity {} does not fit a block", h.block_no, capacity));
}

}  // namespace

namespace {

// A new block reserves the previous block's string bytes per live row plus
// this many percent (block_layout.h: the heap should fill with the stripes).
constexpr uint64_t kReserveMarginPercent = 103;

}  // namespace

Table::Table(TableId id, TableSchema schema, TableOptions options)
    : id_(id),
      schema_(std::move(schema)),
      options_(options),
      layout_(BlockLayout::Compute(schema_, options.max_rows_per_block)),
      stats_(schema_.column_count()) {
  for (const IndexDef& def : schema_.indexes) secondary_.push_back(MakeIndex(def.columns));
  if (has_key()) secondary_.push_back(MakeIndex(schema_.primary_key));
  directory_.SetLoader(
      [this](BlockNo no, const BlockSummary& summary) { return LoadEvictedBlock(no, summary); });
}

void Table::ForEachLiveRow(const std::function<void(TupleId, const Row&)>& fn) const {
  const size_t blocks = block_count();
  for (size_t b = 0; b < blocks; b++) {
    const BlockNo no(static_cast<uint32_t>(b));
    const uint32_t rows = directory_.row_count(no);
    for (uint32_t s = 0; s < rows; s++) {
      const TupleId tid{no, SlotNo(s)};
      if (std::optional<Row> row = Read(tid)) fn(tid, *row);
    }
  }
}

bool Table::HasNull(ColumnId column) const {
  bool found = false;
  ForEachLiveRow([&](TupleId, const Row& row) { found = found || row[column.value()].is_null(); });
  return found;
}

void Table::ReplaceSchema(TableSchema schema) {
  bool same = schema.columns.size() == schema_.columns.size() &&
              schema.primary_key == schema_.primary_key && schema.indexes == schema_.indexes;
  for (size_t i = 0; same && i < schema.columns.size(); i++) {
    same = schema.columns[i].type == schema_.columns[i].type;
  }
  if (!same) {
    throw DbError(sqlstate::kInvalidTableDefinition,
                  fmt::format("table \"{}\": a schema change that keeps the rows must keep the "
                              "column types, the key and the indexes",
                              schema_.name));
  }
  schema_ = std::move(schema);
}

namespace {
// Whether CastValue keeps `v` as it is: a value of the column's own type
// (strings are always cast: the cast may pad or check them).
bool KeptAsIs(const Type& type, const Value& v) {
  return !v.is_null() && v.type() == type && !type.IsString();
}
}  // namespace

Value Table::CastValue(ColumnId c, const Value& v) const {
  const ColumnDef& def = schema_.column(c);
  Value cast = KeptAsIs(def.type, v) ? v : v.CastTo(def.type);
  if (cast.is_null() && (def.not_null || schema_.IsKeyColumn(c))) {
    throw DbError(sqlstate::kNotNullViolation,
                  fmt::format("null value in column \"{}\" of relation \"{}\" violates not-null "
                              "constraint",
                              def.name, schema_.name))
        .WithObject(schema_.name, "", def.name);
  }
  return cast;
}

Row Table::CastRow(const Row& row) const {
  if (row.size() != schema_.column_count()) {
    throw DbError(sqlstate::kSyntaxError, row.size() > schema_.column_count()
                                              ? "INSERT has more expressions than target columns"
                                              : "INSERT has more target columns than expressions");
  }
  Row out;
  out.reserve(row.size());
  for (size_t i = 0; i < row.size(); i++) {
    out.push_back(CastValue(ColumnId(static_cast<uint16_t>(i)), row[i]));
  }
  return out;
}

std::vector<Value> Table::KeyOf(const Row& row) const {
  std::vector<Value> key;
  key.reserve(schema_.primary_key.size());
  for (ColumnId c : schema_.primary_key) key.push_back(row[c.value()]);
  return key;
}

std::vector<Value> Table::StoredKey(TupleId tid) const {
  BlockRef block = directory_.Pin(tid.block);
  std::vector<Value> key;
  key.reserve(schema_.primary_key.size());
  for (ColumnId c : schema_.primary_key) key.push_back(block->GetCell(c, tid.slot));
  return key;
}

uint64_t Table::KeyHash(const std::vector<Value>& key) const {
  // The hash of the key's ordered encoding (ordered_index.h), so that the
  // key index can be rebuilt from the ordered primary-key index's entries
  // without reading a block (hash_index.h).
  // The transaction thread hashes a key per lookup: the buffer is reused.
  thread_local std::string bytes;
  bytes.clear();
  for (size_t i = 0; i < key.size(); i++) {
    AppendOrderedKey(schema_.column(schema_.primary_key[i]).type, key[i], &bytes);
  }
  return HashBytes(bytes);
}

bool Table::KeyEquals(TupleId tid, const std::vector<Value>& key) const {
  BlockRef block = directory_.Pin(tid.block);
  for (size_t i = 0; i < key.size(); i++) {
    if (!block->CellEquals(schema_.primary_key[i], tid.slot, key[i])) return false;
  }
  return true;
}

uint64_t Table::StoredKeyHash(TupleId tid) const { return KeyHash(StoredKey(tid)); }

void Table::RebuildKeyIndex() {
  const OrderedIndex* order = key_order_index();
  if (order == nullptr || !key_index_built_) {
    index_.Clear();
    return;
  }
  index_.Rebuild(order->size(), [order](const std::function<void(uint64_t, TupleId)>& add) {
    order->ForEachEntry([&](std::string_view key, TupleId tid) { add(HashBytes(key), tid); });
  });
}

void Table::DropKeyIndex() {
  key_index_built_ = false;
  key_index_wanted_.store(false, std::memory_order_relaxed);
  index_.Clear();
}

namespace {
std::atomic<uint64_t> key_index_requests{0};
}  // namespace

uint64_t Table::KeyIndexRequests() { return key_index_requests.load(std::memory_order_relaxed); }

bool Table::BuildKeyIndexIfWanted(size_t max_keys) {
  if (key_index_built_ || !has_key() || !key_index_wanted_.load(std::memory_order_relaxed)) {
    return false;
  }
  const OrderedIndex* order = key_order_index();
  if (order == nullptr || order->size() > max_keys) return false;  // stays wanted: not asked again
  key_index_built_ = true;
  RebuildKeyIndex();
  return true;
}

void Table::BuildKeyIndex() {
  if (!has_key()) return;
  key_index_built_ = true;
  RebuildKeyIndex();
}

void Table::KeepKeyIndexRoom() {
  if (has_key() && key_index_built_ && index_.NeedsRebuild()) RebuildKeyIndex();
}

std::optional<TupleId> Table::FindKey(const std::vector<Value>& key, uint64_t hash) const {
  if (key_index_built_) {
    return index_.Find(hash, [&](TupleId tid) { return KeyEquals(tid, key); });
  }
  const OrderedIndex* order = key_order_index();
  return order->FindOther(order->EncodeKey(key), kInvalidTupleId);
}

std::string Table::KeyText(const std::vector<ColumnId>& columns,
                           const std::vector<Value>& values) const {
  std::string names, shown;
  for (size_t i = 0; i < columns.size(); i++) {
    names += (i ? ", " : "") + schema_.column(columns[i]).name;
    shown += (i ? ", " : "") + (values[i].is_null() ? std::string("null") : values[i].ToString());
  }
  return "(" + names + ")=(" + shown + ")";
}

void Table::ThrowDuplicateKey(const std::vector<Value>& key) const {
  // PostgreSQL's DETAIL line travels in the message, as COPY's CONTEXT does.
  throw DbError(sqlstate::kUniqueViolation,
                fmt::format("duplicate key value violates unique constraint \"{}_pkey\"\nDETAIL:  "
                            "Key {} already exists.",
                            schema_.name, KeyText(schema_.primary_key, key)))
      .WithObject(schema_.name, schema_.name + "_pkey");
}

uint32_t Table::StringBytes(const Row& row) const {
  uint64_t bytes = 0;
  for (size_t i = 0; i < row.size(); i++) {
    if (schema_.columns[i].type.StoredAsString() && !row[i].is_null())
      bytes += row[i].GetString().size();
  }
  return static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
}

void Table::CheckRowSize(uint32_t string_bytes) const {
  if (string_bytes > layout_->heap_size()) {
    throw DbError(sqlstate::kProgramLimitExceeded,
                  fmt::format("row is too big: size {}, maximum size {}", string_bytes,
                              layout_->heap_size()));
  }
}

std::shared_ptr<const BlockLayout> Table::LayoutForNewBlock(uint32_t first_row_string_bytes) {
  if (directory_.size() == 0 || !layout_->has_strings()) return layout_;
  // String bytes per live row of the tail block.
  BlockRef tail = directory_.Pin(BlockNo(static_cast<uint32_t>(directory_.size() - 1)));
  // A tail is never frozen while rows go in; should one be (the block after
  // it dropped), a thawed copy has the same string lengths and delete bits.
  std::unique_ptr<Block> thawed = tail->frozen() ? tail->Thaw() : nullptr;
  const BlockReadView view = thawed ? thawed->View() : tail->View();
  uint64_t rows = 0, bytes = 0;
  const uint64_t* deleted = view.delete_bitmap();
  for (uint32_t r = 0; r < view.row_count(); r++) rows += !TestBit(deleted, r);
  if (rows == 0) return layout_;
  for (size_t ci = 0; ci < schema_.column_count(); ci++) {
    ColumnId c(static_cast<uint16_t>(ci));
    if (!schema_.column(c).type.StoredAsString()) continue;
    const StringRef* refs = view.stripe<StringRef>(c);
    for (uint32_t r = 0; r < view.row_count(); r++) {
      if (!TestBit(deleted, r)) bytes += refs[r].length;
    }
  }
  // Plus a margin: the next block's rows vary around the average.
  uint64_t reserve = std::max<uint64_t>(1, (bytes * kReserveMarginPercent / 100 + rows - 1) / rows);
  reserve = std::min<uint64_t>(reserve, kBlockSize);
  std::shared_ptr<const BlockLayout> computed;
  try {
    computed = BlockLayout::ComputeWithReserve(schema_, options_.max_rows_per_block,
                                               static_cast<uint32_t>(reserve));
  } catch (const DbError&) {
    return layout_;  // not even 64 such rows fit: the schema's layout
  }
  if (computed->heap_size() < first_row_string_bytes) return layout_;
  if (computed->capacity() == layout_->capacity()) return layout_;
  auto it = layouts_.find(computed->capacity());
  if (it != layouts_.end()) return it->second;
  layouts_.emplace(computed->capacity(), computed);
  return computed;
}

void Table::AddBlock(uint32_t first_row_string_bytes) {
  // The key index names rows in 48 bits (hash_index.h): 2^27 blocks, 256 TiB.
  if (directory_.size() > HashIndex::kMaxBlock) {
    throw DbError(sqlstate::kProgramLimitExceeded,
                  fmt::format("table \"{}\" cannot have more than {} blocks", schema_.name,
                              HashIndex::kMaxBlock + 1));
  }
  BlockNo no(static_cast<uint32_t>(directory_.size()));
  directory_.Add(Block::Create(LayoutForNewBlock(first_row_string_bytes), id_, no));
}

void Table::WriteRow(Block& block, SlotNo slot, const Row& row) {
  for (size_t i = 0; i < row.size(); i++)
    block.SetCell(ColumnId(static_cast<uint16_t>(i)), slot, row[i]);
}

TupleId Table::AppendRow(const Row& row) {
  uint32_t bytes = StringBytes(row);
  if (directory_.size() == 0 ||
      !directory_.Pin(BlockNo(static_cast<uint32_t>(directory_.size() - 1)))->HasRoomFor(bytes)) {
    AddBlock(bytes);
  }
  BlockNo no(static_cast<uint32_t>(directory_.size() - 1));
  BlockRef block = directory_.Pin(no);
  SlotNo slot = block->AppendSlot();
  WriteRow(*block, slot, row);
  return {no, slot};
}

void Table::PlaceRow(TupleId tid, const Row& row) {
  // The tid comes from the log: a record that passed its CRC may still name
  // a place no run could have used (found by fuzz/wal_log, fuzz/redo_record:
  // this aborted, wrote past a block's slots, or added blocks without end).
  // Undo removes a rolled-back transaction's rows newest first and its empty
  // trailing blocks, so a row lands in an existing block or one of the next
  // few; anything else is XX000, which replay reports as Corruption.
  constexpr uint32_t kMaxRedoNewBlocks = 16;
  uint32_t bytes = StringBytes(row);
  if (tid.block.value() >= directory_.size() + kMaxRedoNewBlocks) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("redo of a row at {}: table \"{}\" has {} blocks", tid.ToString(),
                              schema_.name, directory_.size()));
  }
  while (directory_.size() <= tid.block.value()) {
    AddBlock(directory_.size() == tid.block.value() ? bytes : 0);
  }
  if (directory_.Pin(tid.block)->frozen()) ThawBlock(tid.block);
  BlockRef block = directory_.Pin(tid.block);
  if (block->row_count() > tid.slot.value() || tid.slot.value() >= block->capacity() ||
      !block->HasRoomFor(bytes)) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("redo of a row at {}: slot taken or block full", tid.ToString()));
  }
  while (block->row_count() < tid.slot.value()) block->SetDeleted(block->AppendSlot(), true);
  WriteRow(*block, block->AppendSlot(), row);
}

Table::CheckedRow Table::CheckInsert(const Row& row) const {
  CheckedRow checked{CastRow(row), 0, {}};
  if (has_key()) {
    std::vector<Value> key = KeyOf(checked.row);
    checked.key_hash = key_index_built_ ? KeyHash(key) : 0;
    if (FindKey(key, checked.key_hash)) ThrowDuplicateKey(key);
  }
  if (!secondary_.empty()) {
    checked.index_keys = IndexKeysOf(checked.row);
    CheckUniqueIndexes(checked.index_keys, checked.row, kInvalidTupleId);
  }
  CheckRowSize(StringBytes(checked.row));
  return checked;
}

void Table::FinishInsert(TupleId tid, const CheckedRow& checked) {
  if (has_key() && key_index_built_) index_.Insert(checked.key_hash, tid);
  IndexRow(checked.index_keys, tid);
  KeepKeyIndexRoom();
  stats_.OnInsert(checked.row);
}

TupleId Table::Insert(const Row& row) {
  CheckedRow checked = CheckInsert(row);
  TupleId tid = AppendRow(checked.row);
  FinishInsert(tid, checked);
  return tid;
}

void Table::InsertAt(TupleId tid, const Row& row) {
  CheckedRow checked = CheckInsert(row);
  PlaceRow(tid, checked.row);
  FinishInsert(tid, checked);
}

BlockRef Table::PinLive(TupleId tid) const {
  if (!directory_.Contains(tid.block)) return BlockRef();
  BlockRef block = directory_.Pin(tid.block);
  if (tid.slot.value() >= block->row_count() || block->IsDeleted(tid.slot)) return BlockRef();
  return block;
}

bool Table::IsLive(TupleId tid) const { return static_cast<bool>(PinLive(tid)); }

std::optional<Row> Table::Read(TupleId tid) const {
  BlockRef block = PinLive(tid);
  if (!block) return std::nullopt;
  Row row;
  row.reserve(schema_.column_count());
  for (size_t i = 0; i < schema_.column_count(); i++) {
    row.push_back(block->GetCell(ColumnId(static_cast<uint16_t>(i)), tid.slot));
  }
  return row;
}

std::optional<Value> Table::ReadColumn(TupleId tid, ColumnId column) const {
  if (column.value() >= schema_.column_count()) return std::nullopt;
  BlockRef block = PinLive(tid);  // one pin for the check and the read
  if (!block) return std::nullopt;
  return block->GetCell(column, tid.slot);
}

std::optional<TupleId> Table::LookupKey(const std::vector<Value>& key) const {
  if (!has_key()) return std::nullopt;
  if (key.size() != schema_.primary_key.size()) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  fmt::format("key of \"{}_pkey\" has {} columns, {} given", schema_.name,
                              schema_.primary_key.size(), key.size()));
  }
  // A key that CastValue would keep as it is is looked up as given, without
  // a copy.
  bool as_given = true;
  for (size_t i = 0; i < key.size(); i++) {
    if (key[i].is_null()) return std::nullopt;
    as_given = as_given && KeptAsIs(schema_.column(schema_.primary_key[i]).type, key[i]);
  }
  std::vector<Value> cast;
  if (!as_given) {
    cast.reserve(key.size());
    for (size_t i = 0; i < key.size(); i++)
      cast.push_back(CastValue(schema_.primary_key[i], key[i]));
  }
  const std::vector<Value>& k = as_given ? key : cast;
  if (!key_index_built_ && !key_index_wanted_.exchange(true, std::memory_order_relaxed)) {
    key_index_requests.fetch_add(1, std::memory_order_relaxed);
  }
  return FindKey(k, key_index_built_ ? KeyHash(k) : 0);
}

void Table::WithRows(const BlockRef& block,
                     const std::function<void(const BlockRef&, const BlockReadView&)>& fn) {
  if (block->frozen()) {
    std::unique_ptr<Block> plain = block->Thaw();
    fn(block, plain->View());
  } else {
    fn(block, block->View());
  }
}

void Table::ForEachBlock(
    const std::function<void(const BlockRef&, const BlockReadView&)>& fn) const {
  for (size_t b = 0; b < directory_.size(); b++) {
    const BlockNo no(static_cast<uint32_t>(b));
    const bool was_resident = directory_.resident(no);
    WithRows(directory_.Pin(no), fn);
    // A block this walk loaded goes again when memory is over the budget:
    // it is the durable image it was read from (fn only reads), so a walk
    // over a table larger than the budget stays within it.
    if (!was_resident && OverBlockBudget()) directory_.EvictIfClean(no);
  }
}

size_t Table::FreezeBlocks(bool idle_only, size_t limit, uint32_t* cursor,
                           const FreezeOptions& options) {
  size_t frozen = 0;
  for (FreezeCandidate& c : TakeFreezeCandidates(idle_only, limit, cursor)) {
    frozen += InstallFrozen(c.no, Block::Freeze(*c.copy, options));
  }
  return frozen;
}

std::vector<Table::FreezeCandidate> Table::TakeFreezeCandidates(bool idle_only, size_t limit,
                                                                uint32_t* cursor) {
  std::vector<FreezeCandidate> out;
  for (; *cursor + 1 < directory_.size() && out.size() < limit; ++*cursor) {
    const BlockNo no(*cursor);
    BlockRef block = directory_.TryPin(no);  // not resident: evicted, so idle and clean
    if (!block || block->frozen()) continue;
    const bool touched = block->TakeTouched();
    if ((idle_only && touched) || directory_.PinCount(no) > 1) continue;
    out.push_back({no, block->Copy()});
  }
  if (*cursor + 1 >= directory_.size()) *cursor = static_cast<uint32_t>(directory_.size());
  return out;
}

bool Table::InstallFrozen(BlockNo no, std::unique_ptr<Block> frozen) {
  // The tail may have been removed (an undone insert) and the block with it.
  if (!directory_.Contains(no)) return false;
  {
    BlockRef block = directory_.TryPin(no);
    if (!block || block->frozen() || block->touched() || directory_.PinCount(no) > 1) return false;
    // Untouched, so the rows and the version are the copy's; a checkpoint
    // may have cleared the changed flag since (the copy's image is in it).
    if (!block->IsChangedSinceCheckpoint()) frozen->MarkCheckpointed();
  }
  directory_.Replace(no, std::move(frozen));
  return true;
}

void Table::ThawBlock(BlockNo no) {
  std::unique_ptr<Block> plain = directory_.Pin(no)->Thaw();
  directory_.Replace(no, std::move(plain));
}

void Table::RefreshStatistics() {
  StatisticsScan scan(*layout_);
  ForEachBlock([&](const BlockRef&, const BlockReadView& view) { scan.AddBlock(view); });
  scan.Finish(&stats_);
}

Status Table::BlockOfImage(std::string_view image, std::unique_ptr<Block>* out) const {
  std::shared_ptr<const BlockLayout> layout = layout_;
  const uint32_t capacity = ImageCapacity(image);
  if (capacity != 0 && capacity != layout_->capacity()) {
    layout = BlockLayout::ForCapacity(schema_, capacity);
    if (!layout) return CapacityDoesNotFit(image, capacity);
  }
  return Block::FromImage(std::move(layout), image, out);
}

std::unique_ptr<Block> Table::EvictedBlockOfImage(BlockNo no, uint64_t version,
                                                  std::string_view image) const {
  std::unique_ptr<Block> block;
  Status s = BlockOfImage(image, &block);
  if (s.ok() && (block->block_no() != no || block->version() != version ||
                 block->header().table_id != id_.value())) {
    s = Status::Corruption(fmt::format("the image holds table {} block {} version {}",
                                       block->header().table_id, block->block_no().value(),
                                       block->version()));
  }
  if (!s.ok()) {
    throw DbError(sqlstate::kDataCorrupted,
                  fmt::format("could not read block {} (version {}) of table \"{}\": {}",
                              no.value(), version, schema_.name, s.message()));
  }
  // The image is the cold store's copy of this version: clean.
  block->MarkCheckpointed();
  return block;
}

std::unique_ptr<Block> Table::LoadEvictedBlock(BlockNo no, const BlockSummary& summary) const {
  BlockImageReader* reader = pool_ ? pool_->reader.load() : nullptr;
  if (reader == nullptr) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("block {} of table \"{}\" is not in memory and there is no reader "
                              "for it",
                              no.value(), schema_.name));
  }
  std::string image;
  Status s = reader->ReadImage(id_, no, summary.version, &image);
  if (!s.ok()) {
    throw DbError(
        s.code() == Status::Code::kCorruption ? sqlstate::kDataCorrupted : sqlstate::kIoError,
        fmt::format("could not read block {} (version {}) of table \"{}\": {}", no.value(),
                    summary.version, schema_.name, s.message()));
  }
  return EvictedBlockOfImage(no, summary.version, image);
}

Status Table::LoadBlock(std::string_view image) {
  std::unique_ptr<Block> block;
  Status s = DecodeImage(image, &layouts_, &block);
  if (!s.ok()) return s;
  return LoadDecodedBlock(std::move(block));
}

Status Table::DecodeImage(std::string_view image, LayoutCache* layouts,
                          std::unique_ptr<Block>* out) const {
  // As BlockOfImage, with the layouts cached (a load adds many blocks).
  std::shared_ptr<const BlockLayout> layout = layout_;
  const uint32_t capacity = ImageCapacity(image);
  if (capacity != 0 && capacity != layout_->capacity()) {
    auto it = layouts->find(capacity);
    if (it == layouts->end()) {
      layout = BlockLayout::ForCapacity(schema_, capacity);
      if (!layout) return CapacityDoesNotFit(image, capacity);
      it = layouts->emplace(capacity, layout).first;
    }
    layout = it->second;
  }
  return Block::FromImage(std::move(layout), image, out);
}

Status Table::LoadDecodedBlock(std::unique_ptr<Block> block) {
  if (block->header().table_id != id_.value() || block->block_no().value() != directory_.size()) {
    return Status::Corruption(fmt::format(
        "block image of table {} block {} loaded as table {} block {}", block->header().table_id,
        block->block_no().value(), id_.value(), directory_.size()));
  }
  const BlockNo no = block->block_no();
  if (no.value() == 0) {
    loading_stats_ = std::make_unique<StatisticsScan>(*layout_);
    for (OrderedIndex& index : secondary_) index.Clear();
  }
  directory_.Add(std::move(block));
  if (loading_stats_) {
    WithRows(directory_.Pin(no), [&](const BlockRef& loaded, const BlockReadView& view) {
      loading_stats_->AddBlock(view);
      IndexRows(loaded, view);
    });
  }
  return Status::Ok();
}

void Table::FinishLoading() {
  if (!loading_stats_) {  // no block loaded
    RefreshStatistics();
    RebuildIndex();
    return;
  }
  loading_stats_->Finish(&stats_);
  loading_stats_.reset();
  RebuildKeyIndex();
}

void Table::RebuildIndex() {
  RebuildSecondaryIndexes();
  RebuildKeyIndex();  // when built; else the next lookups ask for it again
}

}  // namespace forktail
