// Block images through the SSD tier: recovery reads a checkpoint's images
// from the tier when a valid slot holds that exact version and from the cold
// store otherwise, copying what it read from the cold store into the tier
// (write-through). After a checkpoint, its new images are copied in too
// (AdmitCheckpointImages), so that the next restart starts warm.
//
// The tier is a cache: a tier that fails (I/O error, full disk) is bypassed
// from then on and every image comes from the cold store; the first error is
// kept for the report. A recovery never fails because of the tier.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "recovery/checkpoint.h"
#include "recovery/cold_store.h"
#include "tiering/ssd_tier.h"

namespace forktail::tier {

// DATA_DIR/tier: the SSD tier's default directory.
std::string TierDir(const std::string& data_dir);

class TieredImageSource : public ckpt::BlockImageSource {
 public:
  TieredImageSource(ckpt::ColdStore* cold, SsdTier* tier) : cold_(cold), tier_(tier) {}

  // Drops the slots the manifest does not name (older or newer versions).
  Status Start(const ckpt::Manifest& manifest) override;
  Status ReadImages(const std::vector<BlockKey>& keys, std::vector<std::string>* images) override;
  // The tier's temperatures (BlockTemperatures); zeros once bypassed.
  std::vector<uint64_t> Temperatures(const std::vector<BlockKey>& keys) override;

  uint64_t from_tier() const { return from_tier_; }
  uint64_t from_cold() const { return from_cold_; }
  uint64_t dropped_stale() const { return dropped_stale_; }
  // Ok, or the error that made the tier be bypassed.
  const Status& tier_error() const { return tier_error_; }

 private:
  void Bypass(const Status& s);
  ckpt::ColdStore* const cold_;
  SsdTier* tier_;  // nullptr once bypassed
  uint64_t from_tier_ = 0;
  uint64_t from_cold_ = 0;
  uint64_t dropped_stale_ = 0;
  Status tier_error_;
};

// After a checkpoint committed `manifest`: adds the heat of the blocks used
// in memory since the last one (`uses`, CheckpointPlan::uses), drops slots the
// manifest no longer names, copies the images of `written` from the cold
// store into the tier, each at the temperature of the version it replaces
// (or its uses, when no slot held one), and makes the temperatures durable.
// Off the transaction thread.
Status AdmitCheckpointImages(ckpt::ColdStore* cold, SsdTier* tier, const ckpt::Manifest& manifest,
                             const std::vector<BlockKey>& written,
                             const std::vector<std::pair<BlockKey, uint64_t>>& uses,
                             uint64_t* admitted);

}  // namespace forktail::tier
