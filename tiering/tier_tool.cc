#include "tiering/tier_tool.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "recovery/checkpoint.h"
#include "recovery/cold_store.h"
#include "recovery/replay_driver.h"
#include "tiering/ssd_tier.h"
#include "tiering/tiered_images.h"

namespace forktail::tier {
namespace {

constexpr size_t kBatch = 32;

bool OpenTier(const std::string& data_dir, const std::string& tier_dir,
              std::unique_ptr<SsdTier>* tier, std::ostream& err) {
  const std::string dir = tier_dir.empty() ? TierDir(data_dir) : tier_dir;
  SsdTierOptions options;
  options.writable = false;
  Status s = SsdTier::Open(dir, options, tier);
  if (s.code() == Status::Code::kNotFound) {
    err << "error: no SSD tier in " << dir << " (" << s.message() << ")\n";
    return false;
  }
  if (!s.ok()) {
    err << "error: could not open the SSD tier in " << dir << ": " << s.ToString() << "\n";
    return false;
  }
  return true;
}

std::string Mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

std::string KeyText(const BlockKey& k) {
  return fmt::format("table {} block {} version {}", k.table, k.block, k.version);
}

// Temperature buckets 0, 1, 2-3, 4-7, ... as "range: count".
std::string Histogram(const std::vector<SlotInfo>& slots) {
  std::map<int, uint64_t> buckets;
  for (const SlotInfo& s : slots) {
    if (!s.record.valid) continue;
    int b = 0;
    for (uint64_t t = s.record.temperature; t > 0; t >>= 1) b++;
    buckets[b]++;
  }
  std::string out;
  for (const auto& [b, n] : buckets) {
    if (!out.empty()) out += ", ";
    if (b <= 1) {
      out += fmt::format("{}: {}", b, n);
    } else {
      out += fmt::format("{}-{}: {}", uint64_t{1} << (b - 1), (uint64_t{1} << b) - 1, n);
    }
  }
  return out.empty() ? "(no valid slot)" : out;
}

}  // namespace

int TierInspect(const std::string& data_dir, const std::string& tier_dir, bool list_slots,
                std::ostream& out, std::ostream& err) {
  std::unique_ptr<SsdTier> tier;
  if (!OpenTier(data_dir, tier_dir, &tier, err)) return kTierUsageError;
  const std::vector<SlotInfo> slots = tier->Slots();
  uint64_t valid = 0, bytes = 0;
  for (const SlotInfo& s : slots) {
    if (!s.record.valid) continue;
    valid++;
    bytes += s.record.length;
  }
  const std::string dir = tier_dir.empty() ? TierDir(data_dir) : tier_dir;
  out << "SSD tier " << dir << "\n";
  out << fmt::format("  slots         {} of {} ({}), {}, {}\n", slots.size(), Mib(kSlotBytes),
                     Mib(slots.size() * kSlotBytes),
                     tier->direct() ? "O_DIRECT" : "buffered (no O_DIRECT here)",
                     tier->uring() ? "io_uring" : "pread/pwrite (no io_uring here)");
  out << fmt::format("  valid         {} ({} of images)\n", valid, Mib(bytes));
  out << fmt::format("  empty         {}\n", slots.size() - valid);
  out << fmt::format("  torn records  {}\n", tier->torn_at_open());
  out << "  temperature   " << Histogram(slots) << "\n";
  if (list_slots) {
    for (const SlotInfo& s : slots) {
      if (!s.record.valid) continue;
      out << fmt::format("slot {:>6}  {}  {} bytes  crc {:08x}  temperature {}\n", s.slot,
                         KeyText(s.record.key), s.record.length, s.record.image_crc,
                         s.record.temperature);
    }
  }
  return tier->torn_at_open() > 0 ? kTierTorn : kTierClean;
}

int TierVerify(const std::string& data_dir, const std::string& tier_dir, std::ostream& out,
               std::ostream& err) {
  std::unique_ptr<SsdTier> tier;
  if (!OpenTier(data_dir, tier_dir, &tier, err)) return kTierUsageError;
  std::unique_ptr<ckpt::ColdStore> cold;
  Status s = ckpt::ColdStore::Open(redo::ColdStoreDir(data_dir), /*read_only=*/true, &cold);
  if (!s.ok()) {
    err << "error: could not open the cold store of " << data_dir << ": " << s.ToString() << "\n";
    return kTierUsageError;
  }
  std::set<BlockKey> current;
  std::string manifest_bytes;
  s = cold->GetManifest(&manifest_bytes);
  if (s.ok()) {
    ckpt::Manifest manifest;
    if (!(s = ckpt::Manifest::Decode(manifest_bytes, &manifest)).ok()) {
      err << "error: the cold store's manifest does not decode: " << s.ToString() << "\n";
      return kTierUsageError;
    }
    current = manifest.Keys();
  } else if (s.code() != Status::Code::kNotFound) {
    err << "error: could not read the cold store's manifest: " << s.ToString() << "\n";
    return kTierUsageError;
  }
  std::vector<BlockKey> keys;
  for (const SlotInfo& info : tier->Slots()) {
    if (info.record.valid) keys.push_back(info.record.key);
  }
  uint64_t intact = 0, stale = 0, corrupt = 0;
  std::vector<std::string> images, cold_image(1);
  std::vector<bool> found;
  for (size_t first = 0; first < keys.size(); first += kBatch) {
    std::vector<BlockKey> batch(keys.begin() + first,
                                keys.begin() + std::min(keys.size(), first + kBatch));
    if (!(s = tier->Read(batch, &images, &found)).ok()) {
      err << "error: " << s.ToString() << "\n";
      return kTierUsageError;
    }
    for (size_t i = 0; i < batch.size(); i++) {
      if (!found[i]) {
        out << "corrupt: " << KeyText(batch[i]) << ": the slot's bytes fail its checksum\n";
        corrupt++;
        continue;
      }
      s = cold->GetBlockImage(batch[i], &cold_image[0]);
      if (s.code() == Status::Code::kNotFound || (s.ok() && !current.count(batch[i]))) {
        // Not read by anyone: the next open drops it.
        out << "stale: " << KeyText(batch[i]) << " is not in the current checkpoint\n";
        stale++;
        continue;
      }
      if (!s.ok()) {
        err << "error: " << s.ToString() << "\n";
        return kTierUsageError;
      }
      if (cold_image[0] != images[i]) {
        out << "corrupt: " << KeyText(batch[i]) << ": differs from the cold store's image\n";
        corrupt++;
        continue;
      }
      intact++;
    }
  }
  out << fmt::format(
      "{}: {} valid slots: {} intact, {} stale, {} corrupt; {} torn records (read as empty)\n",
      corrupt > 0 ? "CORRUPT" : "OK", keys.size(), intact, stale, corrupt, tier->torn_at_open());
  if (corrupt > 0) return kTierCorrupt;
  return tier->torn_at_open() > 0 ? kTierTorn : kTierClean;
}

}  // namespace forktail::tier
