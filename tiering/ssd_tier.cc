#include "tiering/ssd_tier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "storage/crc32c.h"

namespace forktail::tier {
namespace {

// Requests in flight per batch, and so the batch's buffer memory (x 2 MiB).
constexpr size_t kBatch = 32;

}  // namespace

uint32_t ImageCrc(const char* data, size_t n) { return crc32c::Mask(crc32c::Value(data, n)); }

const char* TierStepName(TierStep step) {
  switch (step) {
    case TierStep::kInvalidateWrite:
      return "invalidate_write";
    case TierStep::kInvalidateSync:
      return "invalidate_sync";
    case TierStep::kDataWrite:
      return "data_write";
    case TierStep::kDataSync:
      return "data_sync";
    case TierStep::kValidateWrite:
      return "validate_write";
    case TierStep::kValidateSync:
      return "validate_sync";
  }
  return "?";
}

Status SsdTier::Open(const std::string& dir, const SsdTierOptions& options,
                     std::unique_ptr<SsdTier>* out) {
  std::unique_ptr<SsdTier> tier(new SsdTier());
  tier->options_ = options;
  if (options.writable) {
    if (options.slots == 0) return Status::InvalidArgument("an SSD tier needs at least one slot");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return Status::IoError(
          fmt::format("could not create SSD tier directory {}: {}", dir, ec.message()));
    }
  }
  Status s = tier->table_.Open(dir, options.writable, options.slots, &tier->created_,
                               &tier->records_, &tier->torn_at_open_);
  if (!s.ok()) return s;
  // A new or resized table has only empty records: whatever the slot file
  // holds is unreachable, so it may be resized freely.
  if (!(s = tier->data_.Open(dir, options.writable, tier->table_.slot_count())).ok()) return s;
  const uint32_t n = tier->table_.slot_count();
  tier->maybe_valid_on_disk_.assign(n, 0);
  tier->temperature_dirty_.assign(n, 0);
  for (uint32_t i = 0; i < n; i++) {
    const SlotRecord& r = tier->records_[i];
    if (!r.valid) continue;
    tier->maybe_valid_on_disk_[i] = 1;
    if (!tier->slot_of_.emplace(r.key, i).second) {
      // Two slots for one version cannot come from Admit; keep the first.
      tier->records_[i].valid = false;
    }
  }
  // A torn record may have been a valid one: invalidate before reuse.
  if (tier->torn_at_open_ > 0) {
    for (uint32_t i = 0; i < n; i++) {
      if (!tier->records_[i].valid) tier->maybe_valid_on_disk_[i] = 1;
    }
  }
  *out = std::move(tier);
  return Status::Ok();
}

uint32_t SsdTier::valid_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<uint32_t>(slot_of_.size());
}

TierStats SsdTier::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

Status SsdTier::Step(TierStep step) {
  if (!options_.writable) {
    return Status::InvalidArgument("the SSD tier was opened without write access");
  }
  return options_.before_step ? options_.before_step(step) : Status::Ok();
}

void SsdTier::Forget(uint32_t slot) {
  SlotRecord& r = records_[slot];
  if (r.valid) slot_of_.erase(r.key);
  r = SlotRecord{};
  temperature_dirty_[slot] = 0;
}

Status SsdTier::Invalidate(const std::vector<uint32_t>& slots) {
  std::vector<uint32_t> todo;
  for (uint32_t s : slots) {
    Forget(s);  // unusable from now on, whatever the disk says
    if (maybe_valid_on_disk_[s]) todo.push_back(s);
  }
  // Read-only (tools): forgotten here, the disk is left as it is.
  if (todo.empty() || !options_.writable) return Status::Ok();
  Status s = Step(TierStep::kInvalidateWrite);
  for (size_t i = 0; s.ok() && i < todo.size(); i++) s = table_.Write(todo[i], SlotRecord{});
  if (s.ok()) s = Step(TierStep::kInvalidateSync);
  if (s.ok()) s = table_.Sync();
  if (!s.ok()) return s;
  for (uint32_t slot : todo) maybe_valid_on_disk_[slot] = 0;
  return Status::Ok();
}

Status SsdTier::DropStale(const std::set<BlockKey>& current, uint64_t* dropped) {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<uint32_t> stale;
  for (const auto& [key, slot] : slot_of_) {
    if (!current.count(key) && !Pinned(key)) stale.push_back(slot);
  }
  *dropped = stale.size();
  stats_.dropped_stale += stale.size();
  return Invalidate(stale);
}

Status SsdTier::Read(const std::vector<BlockKey>& keys, std::vector<std::string>* images,
                     std::vector<bool>* found) {
  std::lock_guard<std::mutex> l(mu_);
  images->assign(keys.size(), std::string());
  found->assign(keys.size(), false);
  std::vector<size_t> wanted;  // indexes into keys held by a slot
  for (size_t i = 0; i < keys.size(); i++) {
    if (slot_of_.count(keys[i])) {
      wanted.push_back(i);
    } else {
      stats_.misses++;
    }
  }
  std::vector<SlotBuffer> buffers;
  for (size_t start = 0; start < wanted.size(); start += kBatch) {
    const size_t end = std::min(wanted.size(), start + kBatch);
    std::vector<SlotFile::Request> requests;
    for (size_t j = start; j < end; j++) {
      if (buffers.size() < j - start + 1) buffers.push_back(NewSlotBuffer());
      const uint32_t slot = slot_of_.at(keys[wanted[j]]);
      requests.push_back({slot, records_[slot].length, buffers[j - start].get()});
    }
    Status s = data_.Read(requests);
    if (!s.ok()) return s;
    std::vector<uint32_t> corrupt;
    for (size_t j = start; j < end; j++) {
      const SlotFile::Request& r = requests[j - start];
      SlotRecord& rec = records_[r.slot];
      if (ImageCrc(r.buffer, rec.length) != rec.image_crc) {
        corrupt.push_back(r.slot);
        stats_.misses++;
        continue;
      }
      (*images)[wanted[j]].assign(r.buffer, rec.length);
      (*found)[wanted[j]] = true;
      NoteHit(r.slot);
    }
    reads_since_decay_ += end - start;
    stats_.dropped_corrupt += corrupt.size();
    if (!(s = Invalidate(corrupt)).ok()) return s;
  }
  DecayIfDue();
  return Status::Ok();
}

void SsdTier::NoteHit(uint32_t slot) {
  SlotRecord& rec = records_[slot];
  stats_.hits++;
  stats_.bytes_read += rec.length;
  rec.temperature++;
  temperature_dirty_[slot] = 1;
}

void SsdTier::DecayIfDue() {
  if (reads_since_decay_ < uint64_t{8} * records_.size()) return;
  reads_since_decay_ = 0;
  for (uint32_t i = 0; i < records_.size(); i++) {
    if (!records_[i].valid) continue;
    records_[i].temperature /= 2;
    temperature_dirty_[i] = 1;
  }
}

bool SsdTier::Locate(const BlockKey& key, uint32_t* slot, SlotRecord* record) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = slot_of_.find(key);
  if (it == slot_of_.end()) {
    stats_.misses++;
    return false;
  }
  *slot = it->second;
  *record = records_[it->second];
  // A read, as Read counts one: the reader checks the bytes itself.
  NoteHit(it->second);
  reads_since_decay_++;
  DecayIfDue();
  return true;
}

Status SsdTier::AdmitBatch(const std::vector<std::pair<uint32_t, size_t>>& placed,
                           const std::vector<BlockKey>& keys,
                           const std::vector<std::string_view>& images,
                           const std::vector<uint64_t>& temperatures) {
  std::vector<uint32_t> slots;
  for (const auto& p : placed) slots.push_back(p.first);
  Status s = Invalidate(slots);
  if (!s.ok()) return s;
  std::vector<SlotBuffer> buffers;
  std::vector<SlotFile::Request> requests;
  std::vector<SlotRecord> records;
  for (const auto& [slot, i] : placed) {
    buffers.push_back(NewSlotBuffer());
    char* b = buffers.back().get();
    std::memcpy(b, images[i].data(), images[i].size());
    // The device write is rounded up to 4 KiB: zero the tail, not stale bytes.
    const size_t rounded = std::min(kSlotBytes, (images[i].size() + 4095) / 4096 * 4096);
    std::memset(b + images[i].size(), 0, rounded - images[i].size());
    requests.push_back({slot, static_cast<uint32_t>(images[i].size()), b});
    SlotRecord r;
    r.valid = true;
    r.key = keys[i];
    r.length = static_cast<uint32_t>(images[i].size());
    r.image_crc = ImageCrc(images[i].data(), images[i].size());
    r.temperature = temperatures[i];
    records.push_back(r);
  }
  if (!(s = Step(TierStep::kDataWrite)).ok() || !(s = data_.Write(requests)).ok()) return s;
  if (!(s = Step(TierStep::kDataSync)).ok() || !(s = data_.Sync()).ok()) return s;
  // From the first record write on, the disk may say valid.
  for (uint32_t slot : slots) maybe_valid_on_disk_[slot] = 1;
  if (!(s = Step(TierStep::kValidateWrite)).ok()) return s;
  for (size_t j = 0; j < slots.size(); j++) {
    if (!(s = table_.Write(slots[j], records[j])).ok()) return s;
  }
  if (!(s = Step(TierStep::kValidateSync)).ok() || !(s = table_.Sync()).ok()) return s;
  for (size_t j = 0; j < slots.size(); j++) {
    records_[slots[j]] = records[j];
    slot_of_[records[j].key] = slots[j];
    stats_.admitted++;
    stats_.bytes_written += records[j].length;
  }
  return Status::Ok();
}

Status SsdTier::Admit(const std::vector<BlockKey>& keys,
                      const std::vector<std::string_view>& images,
                      const std::vector<uint64_t>& temperatures, uint64_t* admitted) {
  std::lock_guard<std::mutex> l(mu_);
  *admitted = 0;
  if (!options_.writable) {  // a read-only tier (tools) takes nothing in
    stats_.not_admitted += keys.size();
    return Status::Ok();
  }
  // Free slots first, then valid unpinned slots colder than the newcomer,
  // coldest first.
  std::vector<uint32_t> free_slots;
  std::vector<std::pair<uint64_t, uint32_t>> victims;
  for (uint32_t i = 0; i < records_.size(); i++) {
    const SlotRecord& r = records_[i];
    if (!r.valid) {
      free_slots.push_back(i);
    } else if (!Pinned(r.key)) {
      victims.emplace_back(r.temperature, i);
    }
  }
  std::sort(victims.begin(), victims.end());
  std::reverse(free_slots.begin(), free_slots.end());  // pop_back takes the lowest
  size_t next_victim = 0;
  std::set<BlockKey> seen;
  std::vector<std::pair<uint32_t, size_t>> placed;
  for (size_t i = 0; i < keys.size(); i++) {
    if (slot_of_.count(keys[i]) || !seen.insert(keys[i]).second) continue;
    if (images[i].size() > kSlotBytes || images[i].empty()) {
      stats_.not_admitted++;
      continue;
    }
    uint32_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else if (next_victim < victims.size() && victims[next_victim].first < temperatures[i]) {
      slot = victims[next_victim++].second;
      stats_.evicted++;
    } else {
      stats_.not_admitted++;
      continue;
    }
    placed.emplace_back(slot, i);
    if (placed.size() == kBatch) {
      Status s = AdmitBatch(placed, keys, images, temperatures);
      if (!s.ok()) return s;
      *admitted += placed.size();
      placed.clear();
    }
  }
  if (!placed.empty()) {
    Status s = AdmitBatch(placed, keys, images, temperatures);
    if (!s.ok()) return s;
    *admitted += placed.size();
  }
  return Status::Ok();
}

std::vector<uint64_t> SsdTier::BlockTemperatures(const std::vector<BlockKey>& keys) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<uint64_t> out(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); i++) {
    for (auto it = slot_of_.lower_bound(BlockKey{keys[i].table, keys[i].block, 0});
         it != slot_of_.end() && it->first.table == keys[i].table &&
         it->first.block == keys[i].block;
         ++it) {
      out[i] = std::max(out[i], records_[it->second].temperature);
    }
  }
  return out;
}

void SsdTier::AddHeat(const std::vector<std::pair<BlockKey, uint64_t>>& heat) {
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [key, uses] : heat) {
    for (auto it = slot_of_.lower_bound(BlockKey{key.table, key.block, 0});
         it != slot_of_.end() && it->first.table == key.table && it->first.block == key.block;
         ++it) {
      records_[it->second].temperature += uses;
      temperature_dirty_[it->second] = 1;
    }
    // Uses count as reads toward the halving, so that heat from memory
    // fades as the workload moves on, as the tier's own reads do.
    reads_since_decay_ += uses;
  }
  DecayIfDue();
}

void SsdTier::Pin(const BlockKey& key) {
  std::lock_guard<std::mutex> l(mu_);
  pins_[key]++;
}

void SsdTier::Unpin(const BlockKey& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pins_.find(key);
  if (it != pins_.end() && --it->second == 0) pins_.erase(it);
}

Status SsdTier::PersistTemperatures() {
  std::lock_guard<std::mutex> l(mu_);
  if (!options_.writable) return Status::Ok();
  bool wrote = false;
  for (uint32_t i = 0; i < records_.size(); i++) {
    if (!temperature_dirty_[i] || !records_[i].valid) continue;
    // The record stays valid: its bytes are durable and unchanged.
    Status s = table_.Write(i, records_[i]);
    if (!s.ok()) return s;
    temperature_dirty_[i] = 0;
    wrote = true;
  }
  return wrote ? table_.Sync() : Status::Ok();
}

std::vector<BlockKey> SsdTier::HottestFirst() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::pair<uint64_t, BlockKey>> v;
  for (const auto& [key, slot] : slot_of_) v.emplace_back(records_[slot].temperature, key);
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<BlockKey> out;
  for (const auto& p : v) out.push_back(p.second);
  return out;
}

std::vector<SlotInfo> SsdTier::Slots() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<SlotInfo> out(records_.size());
  for (uint32_t i = 0; i < records_.size(); i++) {
    out[i].slot = i;
    out[i].record = records_[i];
    out[i].pinned = records_[i].valid && Pinned(records_[i].key);
  }
  return out;
}

}  // namespace forktail::tier
