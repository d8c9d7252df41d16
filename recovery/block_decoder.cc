#include "recovery/block_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>

namespace forktail::ckpt {

BlockDecoder::BlockDecoder(ColdStore* store, BlockImageSource* source,
                           std::vector<TableToLoad> tables)
    : store_(store), source_(source), tables_(std::move(tables)) {
  thread_ = std::thread([this] { Run(); });
}

BlockDecoder::~BlockDecoder() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

Status BlockDecoder::Next(std::unique_ptr<Block>* block) {
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait(l, [&] { return !ready_.empty() || !error_.ok() || finished_; });
  // Blocks decoded before an error come first: the error is the next one's.
  if (ready_.empty()) {
    return error_.ok() ? Status::Corruption("no block is left to load") : error_;
  }
  *block = std::move(ready_.front());
  ready_.pop_front();
  l.unlock();
  changed_.notify_all();
  return Status::Ok();
}

bool BlockDecoder::Push(std::unique_ptr<Block> block) {
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait(l, [&] { return ready_.size() < kAhead || stopping_; });
  if (stopping_) return false;
  ready_.push_back(std::move(block));
  l.unlock();
  changed_.notify_all();
  return true;
}

void BlockDecoder::Run() {
  Status s;
  try {
    std::vector<BlockKey> keys;
    std::vector<std::string> images;
    for (const TableToLoad& t : tables_) {
      Table::LayoutCache layouts;
      const std::vector<uint64_t>& versions = *t.versions;
      for (size_t first = 0; first < versions.size() && s.ok(); first += kBatch) {
        keys.clear();
        for (size_t b = first; b < std::min(versions.size(), first + kBatch); b++) {
          keys.push_back(BlockKey{t.id, static_cast<uint32_t>(b), versions[b]});
        }
        // A source reads a batch at once (a tier keeps its reads in flight);
        // the cold store one image at a time, each decoded as it comes.
        if (source_ != nullptr) s = source_->ReadImages(keys, &images);
        images.resize(keys.size());
        for (size_t i = 0; i < keys.size() && s.ok(); i++) {
          if (source_ == nullptr && !(s = store_->GetBlockImage(keys[i], &images[i])).ok()) break;
          std::unique_ptr<Block> block;
          s = t.table->DecodeImage(images[i], &layouts, &block);
          std::string().swap(images[i]);  // the image's memory goes as its block comes
          if (s.ok() && !Push(std::move(block))) return;  // stopped
        }
      }
      if (!s.ok()) break;
    }
  } catch (const std::exception& e) {
    s = Status::IoError(fmt::format("could not load the checkpoint's blocks: {}", e.what()));
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    error_ = std::move(s);
    finished_ = true;
  }
  changed_.notify_all();
}

}  // namespace forktail::ckpt
