#include "storage/table/block_directory.h"

#include <cstdio>
#include <cstdlib>

#include "storage/error.h"

namespace forktail {

namespace {
thread_local LoadPolicy tls_load_policy = LoadPolicy::kInline;

[[noreturn]] void Die(const char* what, uint32_t no) {
  std::fprintf(stderr, "forktail: %s (block %u)\n", what, no);
  std::abort();
}
}  // namespace

std::atomic<uint32_t> BlockDirectory::use_epoch{1};

LoadPolicyScope::LoadPolicyScope(LoadPolicy policy) : saved_(tls_load_policy) {
  tls_load_policy = policy;
}
LoadPolicyScope::~LoadPolicyScope() { tls_load_policy = saved_; }
LoadPolicy LoadPolicyScope::current() { return tls_load_policy; }

BlockDirectory::~BlockDirectory() {
  for (const auto& handle : handles_) {
    if (handle->block) Count(-static_cast<int64_t>(handle->block->memory_bytes()));
  }
}

void BlockDirectory::Add(std::unique_ptr<Block> block) {
  assert(block->block_no().value() == handles_.size());
  Count(static_cast<int64_t>(block->memory_bytes()));
  auto handle = std::make_unique<BlockHandle>();
  handle->block = std::move(block);
  NoteUse(handle.get());
  handles_.push_back(std::move(handle));
}

void BlockDirectory::RemoveLast() {
  assert(!handles_.empty() && handles_.back()->pins.load() == 0 && resident(BlockNo(size() - 1)));
  Count(-static_cast<int64_t>(handles_.back()->block->memory_bytes()));
  handles_.pop_back();
}

void BlockDirectory::Replace(BlockNo no, std::unique_ptr<Block> block) {
  assert(no.value() < handles_.size() && block->block_no() == no);
  BlockHandle& handle = *handles_[no.value()];
  if (handle.pins.load() != 0) Die("Replace of a pinned block", no.value());
  if (handle.state.load() != BlockHandle::State::kResident) {
    Die("Replace of a block that is not resident", no.value());
  }
  Count(static_cast<int64_t>(block->memory_bytes()) -
        static_cast<int64_t>(handle.block->memory_bytes()));
  handle.block = std::move(block);
}

void BlockDirectory::NoteUse(BlockHandle* handle) {
  const uint32_t epoch = use_epoch.load(std::memory_order_relaxed);
  const uint32_t last = handle->last_use.load(std::memory_order_relaxed);
  if (last == epoch) return;  // the common case: no store, no shared line written
  handle->prior_use.store(last, std::memory_order_relaxed);
  handle->last_use.store(epoch, std::memory_order_relaxed);
  handle->uses.fetch_add(1, std::memory_order_relaxed);
}

BlockRef BlockDirectory::Pin(BlockNo no) const {
  if (no.value() >= handles_.size()) {
    std::fprintf(stderr, "forktail: Pin of block %u, directory has %zu\n", no.value(),
                 handles_.size());
    std::abort();
  }
  BlockHandle* handle = handles_[no.value()].get();
  handle->pins.fetch_add(1);  // sequentially consistent: see "Concurrency"
  if (handle->state.load() == BlockHandle::State::kResident) {
    NoteUse(handle);
    return BlockRef(handle);
  }
  handle->pins.fetch_sub(1);
  return PinNotResident(handle, no);
}

BlockRef BlockDirectory::TryPin(BlockNo no) const {
  BlockHandle* handle = handles_[no.value()].get();
  handle->pins.fetch_add(1);
  if (handle->state.load() == BlockHandle::State::kResident) return BlockRef(handle);
  handle->pins.fetch_sub(1);
  return BlockRef();
}

BlockRef BlockDirectory::PinNotResident(BlockHandle* handle, BlockNo no) const {
  std::unique_lock<std::mutex> lock(residency_mu_);
  while (handle->state.load() != BlockHandle::State::kResident) {
    const BlockSummary summary = handle->summary;
    if (tls_load_policy == LoadPolicy::kThrow) {
      throw BlockNotResident{summary.table, no, summary.version};
    }
    if (!loader_) Die("no loader for a block that is not resident", no.value());
    // Read with the mutex released, so that a scan's workers read their
    // blocks in parallel (a snapshot process reads the SSD tier's slots
    // itself: tiering/block_server.h). Two threads that want the same block
    // may both read it; the first installs it. A loader that throws leaves
    // the handle as it was.
    lock.unlock();
    std::unique_ptr<Block> block = loader_(no, summary);
    lock.lock();
    // Still not resident and still that version: install. Otherwise another
    // thread installed it, or it changed and left memory again at another
    // version (read that one).
    if (handle->state.load() != BlockHandle::State::kResident &&
        handle->summary.version == summary.version) {
      Count(static_cast<int64_t>(block->memory_bytes()));
      handle->block = std::move(block);
      handle->state.store(BlockHandle::State::kResident);
    }
  }
  handle->pins.fetch_add(1);
  NoteUse(handle);
  return BlockRef(handle);
}

bool BlockDirectory::resident(BlockNo no) const {
  return handles_[no.value()]->state.load() == BlockHandle::State::kResident;
}

// The accessors read the block when it is resident (pinned, so that it
// stays), else the summary, which does not change while it is not.
uint32_t BlockDirectory::row_count(BlockNo no) const {
  if (BlockRef ref = TryPin(no)) return ref->row_count();
  std::lock_guard<std::mutex> lock(residency_mu_);
  if (BlockRef ref = TryPin(no)) return ref->row_count();
  return handles_[no.value()]->summary.row_count;
}

uint64_t BlockDirectory::version(BlockNo no) const {
  if (BlockRef ref = TryPin(no)) return ref->version();
  std::lock_guard<std::mutex> lock(residency_mu_);
  if (BlockRef ref = TryPin(no)) return ref->version();
  return handles_[no.value()]->summary.version;
}

bool BlockDirectory::changed_since_checkpoint(BlockNo no) const {
  if (BlockRef ref = TryPin(no)) return ref->IsChangedSinceCheckpoint();
  return false;  // only clean blocks are evicted
}

size_t BlockDirectory::memory_bytes(BlockNo no) const {
  if (BlockRef ref = TryPin(no)) return ref->memory_bytes();
  std::lock_guard<std::mutex> lock(residency_mu_);
  if (BlockRef ref = TryPin(no)) return ref->memory_bytes();
  return handles_[no.value()]->summary.memory_bytes;
}

bool BlockDirectory::Evict(BlockNo no) const { return EvictWhere(no, false); }

bool BlockDirectory::EvictIfClean(BlockNo no) const { return EvictWhere(no, true); }

bool BlockDirectory::EvictWhere(BlockNo no, bool only_clean) const {
  BlockHandle* handle = handles_[no.value()].get();
  std::lock_guard<std::mutex> lock(residency_mu_);
  if (handle->state.load() != BlockHandle::State::kResident || handle->pins.load() != 0) {
    return false;
  }
  // Unpinned, so no write is under way; one that starts now backs off below.
  if (only_clean && handle->block->IsChangedSinceCheckpoint()) return false;
  const Block& block = *handle->block;
  handle->summary = {TableId(block.header().table_id),
                     block.version(),
                     block.row_count(),
                     block.header().deleted_count,
                     static_cast<uint32_t>(block.memory_bytes()),
                     block.frozen()};
  handle->state.store(BlockHandle::State::kNotResident);
  if (handle->pins.load() != 0) {  // a pinner came in between: it keeps the block
    handle->state.store(BlockHandle::State::kResident);
    return false;
  }
  Count(-static_cast<int64_t>(handle->summary.memory_bytes));
  handle->block.reset();
  return true;
}

bool BlockDirectory::Install(BlockNo no, std::unique_ptr<Block> block) {
  if (!Contains(no)) return false;
  BlockHandle* handle = handles_[no.value()].get();
  std::lock_guard<std::mutex> lock(residency_mu_);
  if (handle->state.load() == BlockHandle::State::kResident ||
      block->version() != handle->summary.version) {
    return false;
  }
  Count(static_cast<int64_t>(block->memory_bytes()));
  handle->block = std::move(block);
  handle->state.store(BlockHandle::State::kResident);
  NoteUse(handle);
  return true;
}

std::unique_ptr<Block> BlockDirectory::Load(BlockNo no, const BlockSummary& summary) const {
  if (!loader_) Die("no loader for a block that is not resident", no.value());
  return loader_(no, summary);
}

}  // namespace forktail
