#include "tiering/slot_table.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "storage/crc32c.h"

namespace forktail::tier {
namespace {

template <typename T>
void Put(char* sector, size_t* at, T v) {
  std::memcpy(sector + *at, &v, sizeof(v));
  *at += sizeof(v);
}

template <typename T>
T Get(const char* sector, size_t* at) {
  T v;
  std::memcpy(&v, sector + *at, sizeof(v));
  *at += sizeof(v);
  return v;
}

void Seal(char* sector, size_t at) { Put(sector, &at, crc32c::Mask(crc32c::Value(sector, at))); }

bool SealHolds(const char* sector, size_t at) {
  const uint32_t expected = crc32c::Mask(crc32c::Value(sector, at));
  return Get<uint32_t>(sector, &at) == expected;
}

std::string Errno(const std::string& what, const std::string& path) {
  return fmt::format("{} of {} failed: {}", what, path, std::strerror(errno));
}

Status WriteSector(int fd, uint64_t index, const char* sector, const std::string& path) {
  const off_t offset = static_cast<off_t>(index * kSectorBytes);
  size_t done = 0;
  while (done < kSectorBytes) {
    ssize_t n = pwrite(fd, sector + done, kSectorBytes - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return errno == ENOSPC ? Status::NoSpace(Errno("write", path))
                             : Status::IoError(Errno("write", path));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

void SlotRecord::EncodeSector(char* sector) const {
  std::memset(sector, 0, kSectorBytes);
  size_t at = 0;
  Put<uint32_t>(sector, &at, kSlotRecordMagic);
  Put<uint32_t>(sector, &at, valid ? 1 : 0);
  Put<uint32_t>(sector, &at, valid ? key.table : 0);
  Put<uint32_t>(sector, &at, valid ? key.block : 0);
  Put<uint64_t>(sector, &at, valid ? key.version : 0);
  Put<uint32_t>(sector, &at, valid ? length : 0);
  Put<uint32_t>(sector, &at, valid ? image_crc : 0);
  Put<uint64_t>(sector, &at, valid ? temperature : 0);
  Seal(sector, at);
}

bool SlotRecord::DecodeSector(const char* sector, SlotRecord* out) {
  *out = SlotRecord{};
  size_t at = 0;
  if (Get<uint32_t>(sector, &at) != kSlotRecordMagic) return false;
  const uint32_t state = Get<uint32_t>(sector, &at);
  SlotRecord r;
  r.key.table = Get<uint32_t>(sector, &at);
  r.key.block = Get<uint32_t>(sector, &at);
  r.key.version = Get<uint64_t>(sector, &at);
  r.length = Get<uint32_t>(sector, &at);
  r.image_crc = Get<uint32_t>(sector, &at);
  r.temperature = Get<uint64_t>(sector, &at);
  if (!SealHolds(sector, at) || state > 1 || r.length > kSlotBytes) return false;
  if (state == 1) {
    r.valid = true;
    *out = r;
  }
  return true;
}

SlotTableFile::~SlotTableFile() {
  if (fd_ >= 0) close(fd_);
}

std::string SlotTableFile::PathIn(const std::string& dir) { return dir + "/slots.table"; }

Status SlotTableFile::Create(const std::string& path, uint32_t slots) {
  // A new table is written beside the old one and renamed over it, so a
  // crash leaves either the old table or the complete new one.
  const std::string tmp = path + ".new";
  int fd = open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError(Errno("open", tmp));
  std::string bytes((uint64_t{slots} + 1) * kSectorBytes, '\0');
  size_t at = 0;
  Put<uint32_t>(bytes.data(), &at, kSlotTableMagic);
  Put<uint32_t>(bytes.data(), &at, kSlotTableFormat);
  Put<uint32_t>(bytes.data(), &at, slots);
  Put<uint32_t>(bytes.data(), &at, static_cast<uint32_t>(kSlotBytes));
  Seal(bytes.data(), at);
  for (uint32_t i = 0; i < slots; i++) SlotRecord{}.EncodeSector(&bytes[(i + 1) * kSectorBytes]);
  Status s;
  for (size_t done = 0; done < bytes.size() && s.ok();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = errno == ENOSPC ? Status::NoSpace(Errno("write", tmp))
                          : Status::IoError(Errno("write", tmp));
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (s.ok() && fdatasync(fd) != 0) s = Status::IoError(Errno("fdatasync", tmp));
  close(fd);
  if (s.ok() && rename(tmp.c_str(), path.c_str()) != 0) s = Status::IoError(Errno("rename", tmp));
  if (!s.ok()) unlink(tmp.c_str());
  return s;
}

Status SlotTableFile::Open(const std::string& dir, bool create, uint32_t slots, bool* created,
                           std::vector<SlotRecord>* records, uint32_t* torn) {
  *created = false;
  *torn = 0;
  records->clear();
  path_ = PathIn(dir);
  struct stat st {};
  bool exists = stat(path_.c_str(), &st) == 0;
  if (!exists && !create) return Status::NotFound(fmt::format("{} does not exist", path_));
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!exists) {
      Status s = Create(path_, slots);
      if (!s.ok()) return s;
      *created = true;
    }
    fd_ = open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) return Status::IoError(Errno("open", path_));
    std::string bytes;
    if (fstat(fd_, &st) != 0) return Status::IoError(Errno("stat", path_));
    bytes.resize(static_cast<size_t>(st.st_size));
    for (size_t done = 0; done < bytes.size();) {
      ssize_t n = pread(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::IoError(Errno("read", path_));
      done += static_cast<size_t>(n);
    }
    size_t at = 0;
    bool header_ok = bytes.size() >= kSectorBytes &&
                     Get<uint32_t>(bytes.data(), &at) == kSlotTableMagic &&
                     Get<uint32_t>(bytes.data(), &at) == kSlotTableFormat;
    uint32_t count = header_ok ? Get<uint32_t>(bytes.data(), &at) : 0;
    header_ok = header_ok && Get<uint32_t>(bytes.data(), &at) == kSlotBytes &&
                SealHolds(bytes.data(), at) && bytes.size() == (uint64_t{count} + 1) * kSectorBytes;
    if (!header_ok && !create) {
      return Status::Corruption(fmt::format("{} is not a slot table (bad header or size)", path_));
    }
    if (!header_ok || (create && count != slots)) {
      // Another size was asked for, or the header is damaged: start empty.
      close(fd_);
      fd_ = -1;
      exists = false;
      continue;
    }
    slot_count_ = count;
    records->resize(count);
    for (uint32_t i = 0; i < count; i++) {
      if (!SlotRecord::DecodeSector(&bytes[(uint64_t{i} + 1) * kSectorBytes], &(*records)[i])) {
        (*torn)++;
      }
    }
    return Status::Ok();
  }
  return Status::Corruption(fmt::format("{}: a new slot table did not read back", path_));
}

Status SlotTableFile::Write(uint32_t slot, const SlotRecord& record) {
  char sector[kSectorBytes];
  record.EncodeSector(sector);
  return WriteSector(fd_, uint64_t{slot} + 1, sector, path_);
}

Status SlotTableFile::Sync() {
  if (fdatasync(fd_) != 0) return Status::IoError(Errno("fdatasync", path_));
  return Status::Ok();
}

}  // namespace forktail::tier
