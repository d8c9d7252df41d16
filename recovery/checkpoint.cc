#include "recovery/checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>
#include <utility>

#include "recovery/block_decoder.h"

namespace forktail::ckpt {
namespace {

void Put(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct Reader {
  std::string_view p;
  bool Get(uint64_t* v, int bytes) {
    if (p.size() < static_cast<size_t>(bytes)) return false;
    *v = 0;
    for (int i = 0; i < bytes; i++) *v |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
    p.remove_prefix(bytes);
    return true;
  }
};

// The blocks that stay in memory after a load under a memory budget: the
// hottest `source` knows of (the SSD tier's temperatures, which count reads
// from the tier and use epochs in memory before the restart), as many as
// fill the share of the budget an eviction round aims at, at 2 MiB each,
// besides the tails. Empty without a budget or without temperatures.
std::set<BlockKey> HotBlocks(const Catalog& catalog, const Manifest& manifest,
                             BlockImageSource* source) {
  const int64_t budget = catalog.block_budget();
  if (source == nullptr || budget == INT64_MAX) return {};
  std::vector<BlockKey> keys;
  int64_t room = budget * 9 / 10;
  for (const auto& [id, versions] : manifest.tables) {
    if (versions.empty()) continue;
    room -= static_cast<int64_t>(kBlockSize);  // the tail
    for (size_t b = 0; b + 1 < versions.size(); b++) {
      keys.push_back(BlockKey{id, static_cast<uint32_t>(b), versions[b]});
    }
  }
  // Everything fits: nothing will leave memory, no temperature is needed.
  if (static_cast<int64_t>(keys.size() * kBlockSize) <= room) return {};
  const std::vector<uint64_t> heat = source->Temperatures(keys);
  std::vector<size_t> order;
  for (size_t i = 0; i < keys.size(); i++) {
    if (heat[i] > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return heat[a] > heat[b]; });
  std::set<BlockKey> hot;
  for (size_t i : order) {
    if (room < static_cast<int64_t>(kBlockSize)) break;
    room -= static_cast<int64_t>(kBlockSize);
    hot.insert(keys[i]);
  }
  return hot;
}

}  // namespace

std::string Manifest::Encode() const {
  std::string out;
  Put(&out, kManifestMagic, 4);
  Put(&out, kManifestVersion, 4);
  Put(&out, lsn, 8);
  Put(&out, next_txn, 8);
  Put(&out, sequence, 8);
  Put(&out, catalog.size(), 4);
  out += catalog;
  Put(&out, tables.size(), 4);
  for (const auto& [id, versions] : tables) {
    Put(&out, id, 4);
    Put(&out, versions.size(), 4);
    for (uint64_t v : versions) Put(&out, v, 8);
  }
  Put(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())), 4);
  return out;
}

Status Manifest::Decode(std::string_view bytes, Manifest* out) {
  auto bad = [](const char* why) {
    return Status::Corruption(std::string("checkpoint manifest: ") + why);
  };
  if (bytes.size() < 8) return bad("too short");
  uint32_t stored = 0;
  for (int i = 0; i < 4; i++) {
    stored |= uint32_t{static_cast<uint8_t>(bytes[bytes.size() - 4 + i])} << (8 * i);
  }
  if (crc32c::Unmask(stored) != crc32c::Value(bytes.data(), bytes.size() - 4)) {
    return bad("checksum mismatch");
  }
  Reader r{bytes.substr(0, bytes.size() - 4)};
  uint64_t magic, version, len, count;
  if (!r.Get(&magic, 4) || magic != kManifestMagic || !r.Get(&version, 4) ||
      version != kManifestVersion) {
    return bad("bad magic or version");
  }
  Manifest m;
  if (!r.Get(&m.lsn, 8) || !r.Get(&m.next_txn, 8) || !r.Get(&m.sequence, 8) || !r.Get(&len, 4) ||
      len > r.p.size()) {
    return bad("truncated header");
  }
  m.catalog.assign(r.p.substr(0, len));
  r.p.remove_prefix(len);
  if (!r.Get(&count, 4)) return bad("truncated table list");
  for (uint64_t i = 0; i < count; i++) {
    uint64_t id, n;
    if (!r.Get(&id, 4) || !r.Get(&n, 4) || n > r.p.size() / 8) return bad("truncated table");
    std::vector<uint64_t>& versions = m.tables[static_cast<uint32_t>(id)];
    versions.resize(n);
    for (uint64_t& v : versions) r.Get(&v, 8);
  }
  if (!r.p.empty()) return bad("trailing bytes");
  *out = std::move(m);
  return Status::Ok();
}

std::set<BlockKey> Manifest::Keys() const {
  std::set<BlockKey> keys;
  for (const auto& [id, versions] : tables) {
    for (size_t b = 0; b < versions.size(); b++) {
      keys.insert({id, static_cast<uint32_t>(b), versions[b]});
    }
  }
  return keys;
}

uint64_t Manifest::block_count() const {
  uint64_t n = 0;
  for (const auto& [id, versions] : tables) n += versions.size();
  return n;
}

CheckpointPlan CollectCheckpoint(const Catalog& catalog, wal::Lsn lsn, uint64_t next_txn,
                                 const Manifest* previous) {
  CheckpointPlan plan;
  plan.manifest.lsn = lsn;
  plan.manifest.next_txn = next_txn;
  plan.manifest.sequence = previous ? previous->sequence + 1 : 1;
  plan.manifest.catalog = catalog.Serialize();
  std::set<BlockKey> had = previous ? previous->Keys() : std::set<BlockKey>{};
  for (TableId id : catalog.ListTables()) {
    const Table& t = catalog.GetTable(id);
    std::vector<uint64_t>& versions = plan.manifest.tables[id.value()];
    for (size_t b = 0; b < t.block_count(); b++) {
      // A block that is not in memory is clean: its image is the previous
      // manifest's (tiering/buffer_pool.h), so it is neither read nor written.
      const BlockNo no(static_cast<uint32_t>(b));
      BlockKey key{id.value(), no.value(), t.directory().version(no)};
      versions.push_back(key.version);
      if (const uint32_t uses = t.directory().TakeUses(no); uses > 0) {
        plan.uses.emplace_back(key, uses);
      }
      if (t.directory().changed_since_checkpoint(no) || !had.count(key)) {
        plan.keys.push_back(key);
        plan.refs.push_back(t.PinBlock(no));
      }
    }
  }
  return plan;
}

Status WriteCheckpoint(const CheckpointPlan& plan, ColdStore* store, CheckpointStats* stats) {
  *stats = CheckpointStats{};
  stats->blocks_total = plan.manifest.block_count();
  for (size_t i = 0; i < plan.keys.size(); i++) {
    std::string image = plan.refs[i]->ExportImage();
    Status s = store->PutBlockImage(plan.keys[i], image);
    if (!s.ok()) return s;
    stats->blocks_written++;
    stats->bytes_written += image.size();
  }
  Status s = store->PutManifest(plan.manifest.Encode());
  if (!s.ok()) return s;
  // The new manifest is durable: images only older checkpoints used can go.
  return store->DeleteBlocksExcept(plan.manifest.Keys(), &stats->images_deleted);
}

void MarkWritten(CheckpointPlan& plan) {
  for (BlockRef& ref : plan.refs) ref->MarkCheckpointed();
}

Status WriteCheckpointImages(const CheckpointPlan& plan, const std::string& path,
                             CheckpointStats* stats, bool* wrote_file) {
  *stats = CheckpointStats{};
  *wrote_file = false;
  stats->blocks_total = plan.manifest.block_count();
  if (plan.keys.empty()) return Status::Ok();
  // An SST takes keys in order; BlockKey's order is the stored key order.
  std::vector<size_t> order(plan.keys.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return plan.keys[a] < plan.keys[b]; });
  ImageFileWriter writer;
  Status s = writer.Open(path);
  if (!s.ok()) return s;
  for (size_t i : order) {
    std::string image = plan.refs[i]->ExportImage();
    if (!(s = writer.Add(plan.keys[i], image)).ok()) return s;
    stats->blocks_written++;
    stats->bytes_written += image.size();
  }
  uint64_t file_bytes = 0;
  if (!(s = writer.Finish(&file_bytes)).ok()) return s;
  *wrote_file = true;
  return Status::Ok();
}

Status CommitCheckpoint(const Manifest& manifest, const std::string& image_file, ColdStore* store,
                        CheckpointStats* stats, const std::function<void()>& after_ingest,
                        const std::function<std::set<BlockKey>()>& also_keep) {
  Status s;
  if (!image_file.empty() && !(s = store->IngestImageFile(image_file)).ok()) return s;
  if (after_ingest) after_ingest();
  if (!(s = store->PutManifest(manifest.Encode())).ok()) return s;
  std::set<BlockKey> keep = manifest.Keys();
  if (also_keep) keep.merge(also_keep());
  return store->DeleteBlocksExcept(keep, &stats->images_deleted);
}

Status LoadCheckpoint(ColdStore* store, Catalog* catalog, Manifest* manifest,
                      uint64_t* blocks_loaded, BlockImageSource* source) {
  *blocks_loaded = 0;
  std::string bytes;
  Status s = store->GetManifest(&bytes);
  if (!s.ok()) return s;
  if (!(s = Manifest::Decode(bytes, manifest)).ok()) return s;
  if (!(s = catalog->Deserialize(manifest->catalog)).ok()) return s;
  if (source != nullptr && !(s = source->Start(*manifest)).ok()) return s;
  std::vector<BlockDecoder::TableToLoad> tables;
  for (const auto& [id, versions] : manifest->tables) {
    try {
      tables.push_back({&catalog->GetTable(TableId(id)), id, &versions});
    } catch (const DbError&) {
      return Status::Corruption(
          fmt::format("checkpoint manifest names table {}, which the "
                      "checkpoint's catalog does not have",
                      id));
    }
  }
  const std::set<BlockKey> hot = HotBlocks(*catalog, *manifest, source);
  // Loaded blocks that may leave memory again (not hot, not a tail), the
  // newest last: over the budget, the newest goes first, so that without
  // temperatures the first blocks loaded stay.
  std::vector<std::pair<Table*, BlockNo>> evictable;
  // Images are read and decoded ahead on the decoder's thread; this one
  // adds each block to its table (indexes, statistics) in order.
  BlockDecoder decoder(store, source, tables);
  for (const BlockDecoder::TableToLoad& load : tables) {
    Table* t = load.table;
    const std::vector<uint64_t>& versions = *load.versions;
    for (size_t b = 0; b < versions.size(); b++) {
      std::unique_ptr<Block> decoded;
      if (!(s = decoder.Next(&decoded)).ok()) return s;
      // Checks the table id and the block order.
      if (!(s = t->LoadDecodedBlock(std::move(decoded))).ok()) return s;
      BlockRef block = t->PinBlock(BlockNo(static_cast<uint32_t>(b)));
      if (block->version() != versions[b]) {
        return Status::Corruption(fmt::format("block image {}/{}/v{} holds version {}", load.id, b,
                                              versions[b], block->version()));
      }
      // The image is exactly the cold store's version: unchanged since this checkpoint.
      block->MarkCheckpointed();
      (*blocks_loaded)++;
      // Over the catalog's memory budget (tiering/buffer_pool.h) a block
      // leaves memory again at once: it is this checkpoint's image, which a
      // read brings back. Never a hot block, nor a tail, where inserts go.
      block = BlockRef();
      const BlockNo no(static_cast<uint32_t>(b));
      if (b + 1 < versions.size() && !hot.count(BlockKey{load.id, no.value(), versions[b]})) {
        evictable.emplace_back(t, no);
      }
      while (t->OverBlockBudget() && !evictable.empty()) {
        evictable.back().first->directory().Evict(evictable.back().second);
        evictable.pop_back();
      }
    }
    t->FinishLoading();
  }
  return Status::Ok();
}

}  // namespace forktail::ckpt
