#include "snapshot/snapshot_query.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "snapshot/fork_exclusions.h"
#include "snapshot/frame.h"
#include "snapshot/snapshot_entry.h"
#include "snapshot/snapshot_manager.h"
#include "storage/error.h"

namespace forktail {

const char* InternSqlstate(std::string_view code) {
  static std::mutex mu;
  static auto* codes = new std::set<std::string, std::less<>>();
  std::lock_guard lock(mu);
  auto it = codes->find(code);
  if (it == codes->end()) it = codes->emplace(code).first;
  return it->c_str();
}

SnapshotQuery::SnapshotQuery(SnapshotManager* manager, std::shared_ptr<SnapshotEntry> entry,
                             std::string_view request)
    : manager_(manager), entry_(std::move(entry)) {
  // Excluded from forks: a later snapshot must not keep this connection open
  // (the child would then not see EOF when this side closes or dies).
  ForkExclusions::Global().OpenExcluded([this](std::vector<int>* fds) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    fds->push_back(fd_);
  });
  if (fd_ < 0) {
    throw DbError(snapshot_sqlstate::kInsufficientResources,
                  std::string("could not create socket: ") + std::strerror(errno));
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, entry_->address.data(), entry_->address.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + entry_->address.size());
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    ThrowLost(std::string("could not connect: ") + std::strerror(errno));
  }
  if (request.size() > kMaxMessagePayload) {
    throw DbError(sqlstate::kProgramLimitExceeded,
                  "snapshot request of " + std::to_string(request.size()) +
                      " bytes exceeds the limit of " + std::to_string(kMaxMessagePayload));
  }
  Status s = WriteMessage(fd_, FrameType::kRequest, request, manager_->options().max_frame_payload);
  if (!s.ok()) ThrowLost(s.message());
}

SnapshotQuery::~SnapshotQuery() {
  if (fd_ >= 0) {
    ForkExclusions::Global().IncludeFd(fd_);
    close(fd_);
  }
}

void SnapshotQuery::ThrowLost(const std::string& detail) {
  done_ = true;
  throw manager_->DescribeLoss(*entry_, detail);
}

bool SnapshotQuery::Next(std::string* batch) {
  if (done_) return false;
  Frame f;
  Status s = ReadMessage(fd_, manager_->options().max_frame_payload, kMaxMessagePayload, &f);
  if (!s.ok()) {
    if (s.code() == Status::Code::kInvalidArgument) {
      done_ = true;
      throw DbError(snapshot_sqlstate::kProtocolViolation,
                    "invalid frame from " + entry_->Name() + ": " + s.message());
    }
    ThrowLost(s.message());
  }
  switch (f.type) {
    case FrameType::kBatch:
      *batch = std::move(f.payload);
      return true;
    case FrameType::kDone:
      done_ = true;
      return false;
    case FrameType::kError: {
      done_ = true;
      std::string code, message;
      Status e = DecodeErrorPayload(f.payload, &code, &message);
      if (!e.ok()) {
        throw DbError(snapshot_sqlstate::kProtocolViolation,
                      "invalid frame from " + entry_->Name() + ": " + e.message());
      }
      throw DbError(InternSqlstate(code), message);
    }
    default:
      done_ = true;
      throw DbError(snapshot_sqlstate::kProtocolViolation,
                    "invalid frame from " + entry_->Name() + ": unexpected frame type " +
                        std::to_string(static_cast<int>(f.type)));
  }
}

void SnapshotQuery::Cancel() {
  std::lock_guard lock(write_mu_);
  WriteFrame(fd_, FrameType::kCancel, {}).PermitUnchecked();
}

}  // namespace forktail
