#include "tiering/slot_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tiering/slot_table.h"

namespace forktail::tier {
namespace {

constexpr size_t kAlign = 4096;
constexpr unsigned kQueueDepth = 32;

uint32_t DeviceLength(uint32_t length) {
  return static_cast<uint32_t>((uint64_t{length} + kAlign - 1) / kAlign * kAlign);
}

Status FromErrno(int err, const std::string& what, const std::string& path) {
  std::string m = fmt::format("{} of {} failed: {}", what, path, std::strerror(err));
  return err == ENOSPC ? Status::NoSpace(std::move(m)) : Status::IoError(std::move(m));
}

}  // namespace

void AlignedFree::operator()(char* p) const { std::free(p); }

SlotBuffer NewSlotBuffer() {
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, kSlotBytes) != 0) throw std::bad_alloc();
  return SlotBuffer(static_cast<char*>(p));
}

SlotFile::~SlotFile() {
  if (uring_ready_) io_uring_queue_exit(&ring_);
  if (fd_ >= 0) close(fd_);
}

std::string SlotFile::PathIn(const std::string& dir) { return dir + "/slots.data"; }

Status SlotFile::OpenFile(const std::string& dir, int flags) {
  path_ = PathIn(dir);
  fd_ = open(path_.c_str(), flags | O_DIRECT, 0644);
  direct_ = fd_ >= 0;
  if (fd_ < 0 && errno == EINVAL) fd_ = open(path_.c_str(), flags, 0644);  // tmpfs
  if (fd_ < 0) {
    return errno == ENOENT ? Status::NotFound(fmt::format("{} does not exist", path_))
                           : FromErrno(errno, "open", path_);
  }
  return Status::Ok();
}

Status SlotFile::OpenForReading(const std::string& dir) {
  return OpenFile(dir, O_RDONLY | O_CLOEXEC);
}

Status SlotFile::Open(const std::string& dir, bool create, uint32_t slots) {
  Status opened = OpenFile(dir, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0));
  if (!opened.ok()) return opened;
  const off_t want = static_cast<off_t>(uint64_t{slots} * kSlotBytes);
  struct stat st {};
  if (fstat(fd_, &st) != 0) return FromErrno(errno, "stat", path_);
  if (create && st.st_size != want) {
    if (st.st_size > want && ftruncate(fd_, want) != 0) return FromErrno(errno, "truncate", path_);
    // Preallocated: a slot write never waits for block allocation, and a full
    // disk shows at creation rather than in the middle of a replacement.
    int err = want > 0 ? posix_fallocate(fd_, 0, want) : 0;
    if (err != 0) return FromErrno(err, "fallocate", path_);
    if (fsync(fd_) != 0) return FromErrno(errno, "fsync", path_);
  } else if (!create && st.st_size < want) {
    return Status::Corruption(
        fmt::format("{} holds {} bytes, the slot table needs {}", path_, st.st_size, want));
  }
  uring_ready_ = io_uring_queue_init(kQueueDepth, &ring_, 0) == 0;
  return Status::Ok();
}

Status SlotFile::RunOne(const Request& r, bool write) {
  const uint32_t n = DeviceLength(r.length);
  const off_t offset = static_cast<off_t>(uint64_t{r.slot} * kSlotBytes);
  for (uint32_t done = 0; done < n;) {
    ssize_t got = write ? pwrite(fd_, r.buffer + done, n - done, offset + done)
                        : pread(fd_, r.buffer + done, n - done, offset + done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return FromErrno(errno, write ? "write" : "read", path_);
    if (got == 0) return Status::IoError(fmt::format("short read of {} at slot {}", path_, r.slot));
    done += static_cast<uint32_t>(got);
  }
  return Status::Ok();
}

Status SlotFile::Run(const std::vector<Request>& requests, bool write) {
  if (!uring_ready_) {
    for (const Request& r : requests) {
      Status s = RunOne(r, write);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  Status first;
  size_t next = 0;
  unsigned in_flight = 0;
  while (next < requests.size() || in_flight > 0) {
    while (next < requests.size() && in_flight < kQueueDepth) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) break;
      const Request& r = requests[next];
      const off_t offset = static_cast<off_t>(uint64_t{r.slot} * kSlotBytes);
      if (write) {
        io_uring_prep_write(sqe, fd_, r.buffer, DeviceLength(r.length), offset);
      } else {
        io_uring_prep_read(sqe, fd_, r.buffer, DeviceLength(r.length), offset);
      }
      io_uring_sqe_set_data64(sqe, next);
      next++;
      in_flight++;
    }
    int rc = io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0 && rc != -EINTR) return FromErrno(-rc, "io_uring submit", path_);
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
      const Request& r = requests[io_uring_cqe_get_data64(cqe)];
      const int res = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      in_flight--;
      Status s;
      if (res < 0) {
        s = FromErrno(-res, write ? "write" : "read", path_);
      } else if (static_cast<uint32_t>(res) < DeviceLength(r.length)) {
        // Short transfers are legal; finish this one synchronously.
        Request rest = r;
        s = RunOne(rest, write);
      }
      if (!s.ok() && first.ok()) first = s;
    }
  }
  return first;
}

Status SlotFile::Read(const std::vector<Request>& requests) { return Run(requests, false); }
Status SlotFile::Write(const std::vector<Request>& requests) { return Run(requests, true); }

Status SlotFile::Sync() {
  if (fdatasync(fd_) != 0) return FromErrno(errno, "fdatasync", path_);
  return Status::Ok();
}

}  // namespace forktail::tier
