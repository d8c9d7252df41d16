// An in-memory LogFileSystem for tests that injects the failures a real disk
// produces (RocksDB's FaultInjectionTestFS is the model):
//  - FailSyncAt(n): the n-th fdatasync from now fails with EIO (and every one
//    after it, as a dead device would); FailSyncAt(0): none fails again;
//  - FailWritesWithNoSpace(): writes fail with ENOSPC (nothing is written);
//  - SetCapacity(bytes): a disk of that size: a write or preallocation that
//    would take the files' total past it fails with ENOSPC (nothing is
//    written), while writes over bytes a file already has go through;
//  - TearNextWrite(k): the next write stores only its first k bytes and fails
//    with EIO, as a crash in the middle of write(2) would leave it;
//  - HoldSyncs() / ReleaseSyncs(): fdatasync calls wait until released, as
//    on a slow device (what a reader sees while a commit is not yet durable);
//  - SimulateCrash(): every file goes back to what it held at its last sync
//    (appends and overwrites since are lost), and files created since the
//    last directory sync disappear.
// It also counts syncs and records, per file, how many bytes are durable, so a
// test can check that an acknowledged commit was covered by a sync.
// Thread-safe: one mutex guards everything (tests, not speed).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "recovery/wal/log_file.h"

namespace forktail::wal {

class FaultInjectionLogFileSystem final : public LogFileSystem {
 public:
  FaultInjectionLogFileSystem() = default;

  Status OpenForAppend(const std::string& path, std::unique_ptr<LogFile>* file) override;
  Status OpenForRead(const std::string& path, std::unique_ptr<LogFile>* file) override;
  Status ListDir(const std::string& dir, std::vector<std::string>* names) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  bool DirExists(const std::string& dir) override;
  Status Remove(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;

  void FailSyncAt(uint64_t nth_from_now);
  void FailWritesWithNoSpace(bool on);
  void SetCapacity(uint64_t bytes);  // UINT64_MAX: unlimited (the default)
  uint64_t TotalBytes() const;       // of every file
  void TearNextWrite(size_t keep_bytes);
  void HoldSyncs();
  void ReleaseSyncs();
  void SimulateCrash();

  uint64_t sync_count() const;
  // Bytes of `path` that a crash would keep (0 if unknown).
  uint64_t SyncedSize(const std::string& path) const;
  // Direct access to a file's current bytes, for tests that damage them.
  std::string Contents(const std::string& path) const;
  void SetContents(const std::string& path, std::string data);  // as if synced

 private:
  friend class FaultFile;
  struct Node {
    std::string data;
    std::string synced;                // data at the last sync: what a crash leaves
    uint64_t dirty_from = UINT64_MAX;  // the lowest offset written since
    bool name_durable = false;
  };
  // Writes at `offset` (<= the file's size), over its bytes and past them.
  Status DoWrite(const std::string& path, uint64_t offset, const void* data, size_t n,
                 size_t* written);
  Status DoPreallocate(const std::string& path, uint64_t end);
  // NoSpace if growing a file by `growth` bytes does not fit (mu_ held).
  Status CheckRoom(const std::string& path, uint64_t growth) const;
  uint64_t TotalBytesLocked() const;
  Status DoSync(const std::string& path);

  mutable std::mutex mu_;
  std::condition_variable released_;
  bool hold_syncs_ = false;
  std::map<std::string, std::shared_ptr<Node>> files_;
  std::map<std::string, bool> dirs_;
  uint64_t syncs_ = 0;
  uint64_t fail_sync_at_ = 0;  // absolute sync number that starts failing; 0 = never
  bool no_space_ = false;
  uint64_t capacity_ = UINT64_MAX;
  int64_t tear_keep_ = -1;
};

}  // namespace forktail::wal
