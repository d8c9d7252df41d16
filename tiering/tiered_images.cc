#include "tiering/tiered_images.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace forktail::tier {
namespace {

// Images read from the cold store per admission batch (x 2 MiB of memory).
constexpr size_t kBatch = 32;

}  // namespace

std::string TierDir(const std::string& data_dir) { return data_dir + "/tier"; }

void TieredImageSource::Bypass(const Status& s) {
  if (tier_error_.ok()) tier_error_ = s;
  tier_ = nullptr;
}

Status TieredImageSource::Start(const ckpt::Manifest& manifest) {
  if (tier_ == nullptr) return Status::Ok();
  Status s = tier_->DropStale(manifest.Keys(), &dropped_stale_);
  if (!s.ok()) Bypass(s);
  return Status::Ok();
}

Status TieredImageSource::ReadImages(const std::vector<BlockKey>& keys,
                                     std::vector<std::string>* images) {
  std::vector<bool> found(keys.size(), false);
  if (tier_ != nullptr) {
    Status s = tier_->Read(keys, images, &found);
    if (!s.ok()) {
      Bypass(s);
      found.assign(keys.size(), false);
    }
  }
  images->resize(keys.size());
  std::vector<BlockKey> missed;
  std::vector<std::string_view> missed_images;
  for (size_t i = 0; i < keys.size(); i++) {
    if (found[i]) {
      from_tier_++;
      continue;
    }
    Status s = cold_->GetBlockImage(keys[i], &(*images)[i]);
    if (!s.ok()) return s;
    from_cold_++;
    missed.push_back(keys[i]);
    missed_images.push_back((*images)[i]);
  }
  if (tier_ != nullptr && !missed.empty()) {
    uint64_t admitted = 0;
    Status s =
        tier_->Admit(missed, missed_images, std::vector<uint64_t>(missed.size(), 1), &admitted);
    if (!s.ok()) Bypass(s);
  }
  return Status::Ok();
}

std::vector<uint64_t> TieredImageSource::Temperatures(const std::vector<BlockKey>& keys) {
  if (tier_ == nullptr) return std::vector<uint64_t>(keys.size(), 0);
  return tier_->BlockTemperatures(keys);
}

Status AdmitCheckpointImages(ckpt::ColdStore* cold, SsdTier* tier, const ckpt::Manifest& manifest,
                             const std::vector<BlockKey>& written,
                             const std::vector<std::pair<BlockKey, uint64_t>>& uses,
                             uint64_t* admitted) {
  *admitted = 0;
  // Heat first: dropping the replaced versions forgets theirs. A block used
  // in memory that no slot holds yet brings its uses along.
  tier->AddHeat(uses);
  std::vector<uint64_t> heat = tier->BlockTemperatures(written);
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> uses_of;
  for (const auto& [key, n] : uses) uses_of[{key.table, key.block}] = n;
  for (size_t i = 0; i < written.size(); i++) {
    auto it = uses_of.find({written[i].table, written[i].block});
    if (it != uses_of.end()) heat[i] = std::max(heat[i], it->second);
  }
  uint64_t dropped = 0;
  Status s = tier->DropStale(manifest.Keys(), &dropped);
  if (!s.ok()) return s;
  std::vector<std::string> images;
  for (size_t first = 0; first < written.size(); first += kBatch) {
    const size_t end = std::min(written.size(), first + kBatch);
    std::vector<BlockKey> keys(written.begin() + first, written.begin() + end);
    std::vector<uint64_t> temperatures(heat.begin() + first, heat.begin() + end);
    images.assign(keys.size(), std::string());
    std::vector<std::string_view> views;
    for (size_t i = 0; i < keys.size(); i++) {
      if (!(s = cold->GetBlockImage(keys[i], &images[i])).ok()) return s;
      views.push_back(images[i]);
      temperatures[i] = std::max<uint64_t>(temperatures[i], 1);
    }
    uint64_t n = 0;
    if (!(s = tier->Admit(keys, views, temperatures, &n)).ok()) return s;
    *admitted += n;
  }
  return tier->PersistTemperatures();
}

}  // namespace forktail::tier
