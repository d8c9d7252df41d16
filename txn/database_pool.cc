// Database's buffer pool (DatabaseOptions::memory_budget, tiering/buffer_pool.h):
// opened before recovery so that a checkpoint larger than the budget loads
// within it, and kept within it afterwards by a maintenance thread that
// runs an eviction round between two transactions every kRoundInterval
// (each round is a use epoch of the pool's LRU-2), and checkpoints early
// when blocks that changed since the last checkpoint alone exceed the
// budget: a checkpoint is the pool's write-back.
//
// Back-pressure: changed blocks stay until a checkpoint writes them, so
// writes spread over more data than the budget would carry memory past it
// for as long as a checkpoint takes. Past kHardLimit times the budget, a
// transaction about to read a block back waits (on its own thread, holding
// no lock) for one pass of the pool thread - a round, the checkpoint it
// asks for, a round after it - up to kRoomWait; the pool thread then works
// without pause. Reads back are so paced by the write-back.
#include <fmt/format.h>

#include <chrono>
#include <future>

#include "forktail/database.h"
#include "txn/database_impl.h"

namespace forktail {
namespace {
constexpr auto kRoundInterval = std::chrono::milliseconds(100);
// Checkpoints the pool asks for are at least this far apart, unless a
// transaction waits for room.
constexpr auto kForcedCheckpointInterval = std::chrono::seconds(1);
constexpr double kHardLimit = 1.25;
constexpr auto kRoomWait = std::chrono::seconds(2);
}  // namespace

void Database::OpenPool() {
  const uint64_t budget = impl_->options.memory_budget;
  if (budget == 0) return;
  impl_->pool = std::make_unique<tier::BufferPool>(&impl_->catalog, impl_->cold_store.get(),
                                                   impl_->ssd_tier.get(), budget);
  impl_->catalog.SetBlockImageReader(impl_->pool.get());
  impl_->catalog.SetBlockBudget(static_cast<int64_t>(budget));
}

void Database::StartPoolThread() {
  if (!impl_->pool) return;
  impl_->engine->SetBeforeLoad([this] { WaitForPoolRoom(); });
  tier::BlockServer::Locator locate;
  if (impl_->ssd_tier) {
    tier::BufferPool* pool = impl_->pool.get();
    locate = [pool](TableId table, BlockNo block, uint64_t version, uint32_t* slot,
                    tier::SlotRecord* record) {
      return pool->LocateInTier(table, block, version, slot, record);
    };
    impl_->snapshot_slot_dir = impl_->tier_report.dir;
  }
  Status s = tier::BlockServer::Start(impl_->pool.get(), &impl_->block_server, std::move(locate));
  if (!s.ok()) {
    throw DbError(sqlstate::kIoError,
                  fmt::format("could not serve blocks to snapshot processes: {}", s.message()));
  }
  impl_->block_server_address = impl_->block_server->address();
  impl_->pool_thread = std::thread([this] { PoolLoop(); });
}

std::shared_ptr<const void> Database::PinForSnapshot() {
  return impl_->pool ? impl_->pool->PinForSnapshot() : nullptr;
}

void Database::BeginSnapshotProcess() {
  if (impl_->block_server_address.empty()) return;  // no budget: every block is in memory
  // The parent's pool, server and cold store are not this process's to use
  // (DESIGN.md, fork safety): a connection of its own to the parent's server.
  // With an SSD tier it reads the slots itself, through a handle of its own.
  impl_->snapshot_reader = std::make_unique<tier::RemoteBlockReader>(impl_->block_server_address,
                                                                     impl_->snapshot_slot_dir);
  impl_->catalog.SetBlockImageReader(impl_->snapshot_reader.get());
}

namespace {
tier::EvictRoundResult RoundBetweenTransactions(Database* db, tier::BufferPool* pool) {
  std::promise<tier::EvictRoundResult> done;
  std::future<tier::EvictRoundResult> round = done.get_future();
  db->RunBetweenTransactions([&](wal::Lsn) { done.set_value(pool->EvictRound()); });
  return round.get();
}
}  // namespace

void Database::TrimToBudget() {
  if (impl_->pool) RoundBetweenTransactions(this, impl_->pool.get());
}

bool Database::PoolHasRoom() const {
  return static_cast<double>(impl_->pool->resident_bytes()) <=
         kHardLimit * static_cast<double>(impl_->pool->budget_bytes());
}

void Database::WaitForPoolRoom() {
  if (PoolHasRoom()) return;
  // One pass of the pool thread (a round, and the checkpoint it asks for,
  // and a round after it), not until there is room: under writes spread
  // wide the room may never come, and a load per pass per waiting
  // transaction is what bounds memory then.
  std::unique_lock<std::mutex> l(impl_->pool_mu);
  const uint64_t pass = impl_->pool_passes;
  impl_->pool_wakeup = true;
  impl_->pool_cv.notify_all();
  impl_->pool_cv.wait_for(l, kRoomWait, [&] {
    return impl_->pool_stop || impl_->pool_passes != pass || PoolHasRoom();
  });
  impl_->pool_waits.fetch_add(1, std::memory_order_relaxed);
}

void Database::PoolLoop() {
  auto last_forced = std::chrono::steady_clock::now() - kForcedCheckpointInterval;
  std::unique_lock<std::mutex> l(impl_->pool_mu);
  for (;;) {
    impl_->pool_cv.wait_for(l, kRoundInterval,
                            [&] { return impl_->pool_stop || impl_->pool_wakeup; });
    if (impl_->pool_stop) return;
    const bool urgent = impl_->pool_wakeup;
    impl_->pool_wakeup = false;
    l.unlock();
    const tier::EvictRoundResult r = RoundBetweenTransactions(this, impl_->pool.get());
    const auto now = std::chrono::steady_clock::now();
    if (r.needs_checkpoint && (urgent || now - last_forced >= kForcedCheckpointInterval) &&
        !log_failed()) {
      last_forced = now;
      try {
        Checkpoint();
        impl_->forced_checkpoints.fetch_add(1, std::memory_order_relaxed);
        // The blocks it made clean may go at once.
        RoundBetweenTransactions(this, impl_->pool.get());
      } catch (const DbError&) {
        // The next round asks again; the error is the checkpoint's own to
        // report (a full disk, a failed log) and the caller of the next
        // explicit checkpoint sees it.
      }
    }
    l.lock();
    impl_->pool_passes++;
    impl_->pool_cv.notify_all();  // transactions waiting for room go on
  }
}

PoolReport Database::pool_report() const {
  PoolReport r;
  if (!impl_->pool) return r;
  const tier::BufferPoolStats s = impl_->pool->stats();
  const TxnEngine::LoadStats loads = impl_->engine->load_stats();
  r.enabled = true;
  r.budget_bytes = impl_->pool->budget_bytes();
  r.resident_bytes = impl_->pool->resident_bytes();
  r.evicted = s.evicted;
  r.reads = s.reads;
  r.reads_from_tier = s.reads_from_tier;
  r.read_bytes = s.read_bytes;
  r.restarts = loads.restarts;
  r.inline_loads = loads.inline_fallbacks;
  r.forced_checkpoints = impl_->forced_checkpoints.load(std::memory_order_relaxed);
  r.room_waits = impl_->pool_waits.load(std::memory_order_relaxed);
  return r;
}

}  // namespace forktail
