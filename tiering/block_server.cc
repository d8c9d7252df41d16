#include "tiering/block_server.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tiering/ssd_tier.h"

namespace forktail::tier {
namespace {

constexpr uint8_t kImage = 0;
constexpr uint8_t kLocate = 1;
constexpr size_t kRequestBytes = 17;  // kind u8 | table u32 | block u32 | version u64
constexpr size_t kReplyHeaderBytes = 5;
constexpr size_t kLocationBytes = 12;  // slot u32 | length u32 | crc u32

// Fills `addr` for the abstract name `name` and returns its length.
socklen_t AbstractAddress(const std::string& name, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  const size_t n = std::min(name.size(), sizeof(addr->sun_path) - 1);
  std::memcpy(addr->sun_path + 1, name.data(), n);  // sun_path[0] == 0: abstract
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// false at EOF or on an error.
bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

Status StatusOf(uint8_t code, std::string message) {
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kOk:
      return Status::Ok();
    case Status::Code::kCorruption:
      return Status::Corruption(std::move(message));
    case Status::Code::kNotFound:
      return Status::NotFound(std::move(message));
    case Status::Code::kNoSpace:
      return Status::NoSpace(std::move(message));
    default:
      return Status::IoError(std::move(message));
  }
}

}  // namespace

Status BlockServer::Start(BlockImageReader* source, std::unique_ptr<BlockServer>* out,
                          Locator locate) {
  static std::atomic<uint32_t> counter{0};
  const std::string name = fmt::format("forktail-blocks-{}-{}", getpid(), counter++);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(fmt::format("block server socket: {}", strerror(errno)));
  sockaddr_un addr;
  const socklen_t len = AbstractAddress(name, &addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, 64) != 0) {
    const int e = errno;
    close(fd);
    return Status::IoError(fmt::format("block server \"{}\": {}", name, strerror(e)));
  }
  out->reset(new BlockServer(source, std::move(locate), fd, name));
  return Status::Ok();
}

BlockServer::BlockServer(BlockImageReader* source, Locator locate, int listen_fd,
                         std::string address)
    : source_(source),
      locate_(std::move(locate)),
      listen_fd_(listen_fd),
      address_(std::move(address)) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

BlockServer::~BlockServer() {
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (int fd : connections_) shutdown(fd, SHUT_RDWR);  // wakes their recv()
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

void BlockServer::AcceptLoop() {
  while (!stopping_) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) {
      close(fd);
      return;
    }
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void BlockServer::Serve(int fd) {
  uint8_t request[kRequestBytes];
  std::string image;
  while (!stopping_ && ReadAll(fd, request, sizeof request)) {
    const uint8_t kind = request[0];
    uint32_t table, block;
    uint64_t version;
    std::memcpy(&table, request + 1, 4);
    std::memcpy(&block, request + 5, 4);
    std::memcpy(&version, request + 9, 8);
    requests_.fetch_add(1, std::memory_order_relaxed);
    Status s = Status::Ok();
    if (kind == kLocate) {
      uint32_t slot = 0;
      SlotRecord record;
      if (locate_ && locate_(TableId(table), BlockNo(block), version, &slot, &record)) {
        image.resize(kLocationBytes);
        std::memcpy(image.data(), &slot, 4);
        std::memcpy(image.data() + 4, &record.length, 4);
        std::memcpy(image.data() + 8, &record.image_crc, 4);
      } else {
        s = Status::NotFound("not in the SSD tier");
      }
    } else if (kind == kImage) {
      s = source_->ReadImage(TableId(table), BlockNo(block), version, &image);
    } else {
      break;  // not a peer of this protocol
    }
    const std::string& body = s.ok() ? image : s.message();
    uint8_t header[kReplyHeaderBytes];
    header[0] = static_cast<uint8_t>(s.code());
    const auto length = static_cast<uint32_t>(body.size());
    std::memcpy(header + 1, &length, 4);
    if (!WriteAll(fd, header, sizeof header) || !WriteAll(fd, body.data(), body.size())) break;
  }
  std::lock_guard<std::mutex> l(mu_);
  std::erase(connections_, fd);
  close(fd);
}

RemoteBlockReader::RemoteBlockReader(std::string address, std::string slot_dir)
    : address_(std::move(address)), slot_dir_(std::move(slot_dir)) {}

RemoteBlockReader::~RemoteBlockReader() {
  if (fd_ >= 0) close(fd_);
}

Status RemoteBlockReader::ReadImage(TableId table, BlockNo block, uint64_t version,
                                    std::string* image) {
  uint8_t code = 0;
  if (!slot_dir_.empty()) {
    std::string location;
    Status s = Exchange(kLocate, table, block, version, &code, &location);
    if (!s.ok()) return s;
    if (code == static_cast<uint8_t>(Status::Code::kOk) && location.size() == kLocationBytes) {
      uint32_t slot, length, crc;
      std::memcpy(&slot, location.data(), 4);
      std::memcpy(&length, location.data() + 4, 4);
      std::memcpy(&crc, location.data() + 8, 4);
      if (ReadSlot(slot, length, crc, image)) return Status::Ok();
    }
  }
  Status s = Exchange(kImage, table, block, version, &code, image);
  if (!s.ok()) return s;
  if (code != static_cast<uint8_t>(Status::Code::kOk)) return StatusOf(code, std::move(*image));
  return Status::Ok();
}

bool RemoteBlockReader::ReadSlot(uint32_t slot, uint32_t length, uint32_t crc, std::string* image) {
  std::call_once(slots_open_, [this] { slots_readable_ = slots_.OpenForReading(slot_dir_).ok(); });
  if (!slots_readable_ || length > kSlotBytes) return false;
  // One buffer per reading thread (a scan's workers), kept: a fresh 2 MiB
  // would fault its pages in on every read.
  thread_local SlotBuffer buffer;
  if (!buffer) buffer = NewSlotBuffer();
  if (!slots_.ReadOne({slot, length, buffer.get()}).ok()) return false;
  // The slot may have been given to another block since the server answered.
  if (ImageCrc(buffer.get(), length) != crc) return false;
  image->assign(buffer.get(), length);
  return true;
}

Status RemoteBlockReader::Exchange(uint8_t kind, TableId table, BlockNo block, uint64_t version,
                                   uint8_t* code, std::string* body) {
  std::lock_guard<std::mutex> l(mu_);
  if (fd_ < 0) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr;
    const socklen_t len = AbstractAddress(address_, &addr);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      const int e = errno;
      if (fd_ >= 0) close(fd_);
      fd_ = -1;
      return Status::IoError(fmt::format("could not reach the server's block reads (\"{}\"): {}",
                                         address_, strerror(e)));
    }
  }
  uint8_t request[kRequestBytes];
  const uint32_t t = table.value(), b = block.value();
  request[0] = kind;
  std::memcpy(request + 1, &t, 4);
  std::memcpy(request + 5, &b, 4);
  std::memcpy(request + 9, &version, 8);
  uint8_t header[kReplyHeaderBytes];
  uint32_t length = 0;
  bool ok = WriteAll(fd_, request, sizeof request) && ReadAll(fd_, header, sizeof header);
  if (ok) {
    std::memcpy(&length, header + 1, 4);
    body->resize(length);
    ok = ReadAll(fd_, body->data(), length);
  }
  if (!ok) {
    close(fd_);
    fd_ = -1;  // the next read connects again
    return Status::IoError("the connection to the server's block reads was lost");
  }
  *code = header[0];
  return Status::Ok();
}

}  // namespace forktail::tier
