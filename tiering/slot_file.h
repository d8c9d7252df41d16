// The SSD tier's slot file: DIR/slots.data, `slots` preallocated 2 MiB slots,
// opened with O_DIRECT (the tier is a cache of its own; the page cache would
// hold the same bytes twice) and read and written through io_uring with many
// requests in flight.
//
// Where the file system refuses O_DIRECT (tmpfs) the file is opened buffered,
// and where io_uring is unavailable (seccomp) requests run one by one with
// pread/pwrite: direct() and uring() say which, and `forktail tier inspect`
// prints it.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/storage.h"

namespace forktail::tier {

// A 4 KiB-aligned buffer of kSlotBytes, as O_DIRECT wants.
struct AlignedFree {
  void operator()(char* p) const;
};
using SlotBuffer = std::unique_ptr<char, AlignedFree>;
SlotBuffer NewSlotBuffer();

class SlotFile {
 public:
  struct Request {
    uint32_t slot = 0;
    uint32_t length = 0;     // bytes from the slot's start; rounded up to 4 KiB on the device
    char* buffer = nullptr;  // a SlotBuffer's memory
  };

  SlotFile() = default;
  ~SlotFile();
  SlotFile(const SlotFile&) = delete;
  SlotFile& operator=(const SlotFile&) = delete;

  // Opens (creating and preallocating with `create`) DIR/slots.data for
  // `slots` slots. A file of another size is resized.
  Status Open(const std::string& dir, bool create, uint32_t slots);
  // Opens DIR/slots.data to read only, as it is (no io_uring): a snapshot
  // process's own handle (tiering/block_server.h).
  Status OpenForReading(const std::string& dir);
  // One request with pread: any number of threads at once.
  Status ReadOne(const Request& r) { return RunOne(r, false); }
  // All requests, many in flight; the first failure is returned after the
  // rest finished. Reads past a request's length leave the buffer's tail as is.
  Status Read(const std::vector<Request>& requests);
  Status Write(const std::vector<Request>& requests);
  Status Sync();

  bool direct() const { return direct_; }
  bool uring() const { return uring_ready_; }
  static std::string PathIn(const std::string& dir);

 private:
  Status OpenFile(const std::string& dir, int flags);
  Status Run(const std::vector<Request>& requests, bool write);
  Status RunOne(const Request& r, bool write);
  int fd_ = -1;
  bool direct_ = false;
  bool uring_ready_ = false;
  io_uring ring_{};
  std::string path_;
};

}  // namespace forktail::tier
