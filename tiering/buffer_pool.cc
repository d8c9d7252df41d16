#include "tiering/buffer_pool.h"

#include <algorithm>
#include <tuple>

namespace forktail::tier {

BufferPool::BufferPool(Catalog* catalog, ckpt::ColdStore* cold, SsdTier* ssd, uint64_t budget_bytes)
    : catalog_(catalog), cold_(cold), ssd_(ssd), budget_(budget_bytes) {}

int64_t BufferPool::resident_bytes() const { return catalog_->resident_block_bytes(); }

void BufferPool::SetDurable(const ckpt::Manifest& manifest) {
  auto versions = std::make_shared<const Versions>(manifest.tables);
  std::lock_guard<std::mutex> lock(durable_mu_);
  durable_ = std::move(versions);
  durable_sequence_ = manifest.sequence;
}

std::shared_ptr<const void> BufferPool::PinForSnapshot() {
  std::lock_guard<std::mutex> lock(durable_mu_);
  if (durable_sequence_ == 0) return nullptr;  // nothing durable: nothing was evicted
  const uint64_t sequence = durable_sequence_;
  Pinned& p = pinned_[sequence];
  if (p.count++ == 0) p.versions = durable_;  // shared, not copied: a fork waits for this
  return std::shared_ptr<const void>(this, [this, sequence](const void*) {
    std::lock_guard<std::mutex> l(durable_mu_);
    auto it = pinned_.find(sequence);
    if (it != pinned_.end() && --it->second.count == 0) pinned_.erase(it);
  });
}

std::set<BlockKey> BufferPool::PinnedKeys() const {
  std::lock_guard<std::mutex> lock(durable_mu_);
  std::set<BlockKey> keys;
  for (const auto& [sequence, p] : pinned_) {
    for (const auto& [table, versions] : *p.versions) {
      for (size_t b = 0; b < versions.size(); b++) {
        keys.insert({table, static_cast<uint32_t>(b), versions[b]});
      }
    }
  }
  return keys;
}

bool BufferPool::Durable(TableId table, BlockNo block, uint64_t version) const {
  auto it = durable_->find(table.value());
  return it != durable_->end() && block.value() < it->second.size() &&
         it->second[block.value()] == version;
}

EvictRoundResult BufferPool::EvictRound(double target) {
  EvictRoundResult result;
  // Every round starts a use epoch (called periodically, a round is a slice
  // of time): blocks used in two epochs are told from those used in one.
  BlockDirectory::use_epoch.fetch_add(1, std::memory_order_relaxed);
  int64_t resident = resident_bytes();
  if (resident <= static_cast<int64_t>(budget_)) return result;
  const auto goal = static_cast<int64_t>(static_cast<double>(budget_) * target);
  // Candidates: clean, unpinned, resident blocks but each table's tail,
  // ordered by (prior use, last use): LRU-2.
  struct Candidate {
    uint32_t prior, last;
    TableId table;
    BlockNo block;
  };
  std::vector<Candidate> candidates;
  {
    std::lock_guard<std::mutex> lock(durable_mu_);
    for (TableId id : catalog_->ListTables()) {
      const BlockDirectory& d = catalog_->GetTable(id).directory();
      for (uint32_t b = 0; b + 1 < d.size(); b++) {
        const BlockNo no(b);
        if (!d.resident(no) || d.PinCount(no) != 0 || d.changed_since_checkpoint(no) ||
            !Durable(id, no, d.version(no))) {
          continue;
        }
        candidates.push_back({d.prior_use(no), d.last_use(no), id, no});
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.prior, a.last, a.table, a.block) <
           std::tie(b.prior, b.last, b.table, b.block);
  });
  for (const Candidate& c : candidates) {
    if (resident <= goal) break;
    BlockDirectory& d = catalog_->GetTable(c.table).directory();
    const auto bytes = static_cast<int64_t>(d.memory_bytes(c.block));
    if (d.Evict(c.block)) {
      resident -= bytes;
      result.evicted++;
      result.evicted_bytes += static_cast<uint64_t>(bytes);
    }
  }
  result.needs_checkpoint = resident_bytes() > static_cast<int64_t>(budget_);
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.rounds++;
  stats_.evicted += result.evicted;
  stats_.evicted_bytes += result.evicted_bytes;
  stats_.dirty_rounds += result.needs_checkpoint;
  return result;
}

Status BufferPool::ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) {
  const BlockKey key{table.value(), block.value(), version};
  bool from_tier = false;
  SsdTier* const ssd = ssd_.load();
  if (ssd != nullptr) {
    std::vector<std::string> images;
    std::vector<bool> found;
    // A tier that fails is only a cache that missed: the cold store answers.
    if (ssd->Read({key}, &images, &found).ok() && found[0]) {
      *image = std::move(images[0]);
      from_tier = true;
    }
  }
  if (!from_tier) {
    Status s = cold_->GetBlockImage(key, image);
    if (!s.ok()) return s;
    if (ssd != nullptr) {
      // Write-through: the tier holds this version from now on.
      uint64_t admitted = 0;
      const uint64_t heat = ssd->BlockTemperatures({key})[0];
      ssd->Admit({key}, {std::string_view(*image)}, {heat + 1}, &admitted).PermitUnchecked();
    }
  }
  CountRead(image->size(), from_tier);
  return Status::Ok();
}

void BufferPool::CountRead(uint64_t bytes, bool from_tier) {
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.reads++;
  stats_.read_bytes += bytes;
  stats_.reads_from_tier += from_tier;
}

bool BufferPool::LocateInTier(TableId table, BlockNo block, uint64_t version, uint32_t* slot,
                              SlotRecord* record) {
  SsdTier* const ssd = ssd_.load();
  if (ssd == nullptr || !ssd->Locate({table.value(), block.value(), version}, slot, record)) {
    return false;
  }
  CountRead(record->length, /*from_tier=*/true);
  return true;
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

}  // namespace forktail::tier
