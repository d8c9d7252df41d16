#include "storage/table/block_directory.h"

#include <cstdio>
#include <cstdlib>

namespace forktail {

void BlockDirectory::Add(std::unique_ptr<Block> block) {
  assert(block->block_no().value() == handles_.size());
  auto handle = std::make_unique<BlockHandle>();
  handle->block = std::move(block);
  handles_.push_back(std::move(handle));
}

void BlockDirectory::RemoveLast() {
  assert(!handles_.empty() && handles_.back()->pins.load() == 0);
  handles_.pop_back();
}

void BlockDirectory::Replace(BlockNo no, std::unique_ptr<Block> block) {
  assert(no.value() < handles_.size() && block->block_no() == no);
  BlockHandle& handle = *handles_[no.value()];
  if (handle.pins.load() != 0) {
    std::fprintf(stderr, "forktail: Replace of pinned block %u\n", no.value());
    std::abort();
  }
  handle.block = std::move(block);
}

BlockRef BlockDirectory::Pin(BlockNo no) const {
  if (no.value() >= handles_.size()) {
    std::fprintf(stderr, "forktail: Pin of block %u, directory has %zu\n", no.value(),
                 handles_.size());
    std::abort();
  }
  BlockHandle* handle = handles_[no.value()].get();
  // The buffer pool loads a kNotResident handle here through loader_.
  assert(handle->state == BlockHandle::State::kResident);
  return BlockRef(handle);
}

}  // namespace forktail
