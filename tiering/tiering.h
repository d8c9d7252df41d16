// The tiering module's public door: the buffer pool (memory budget, eviction,
// reads back), the SSD tier (slot file + persistent slot table) in front of
// the RocksDB cold store, the image source recovery reads
// through it, and the logic of `forktail tier inspect|verify`. See DESIGN.md,
// Tiering, and docs/tiering.md.
#pragma once

#include "tiering/block_server.h"
#include "tiering/buffer_pool.h"
#include "tiering/slot_file.h"
#include "tiering/slot_table.h"
#include "tiering/ssd_tier.h"
#include "tiering/tier_tool.h"
#include "tiering/tiered_images.h"
