#include "snapshot/frame.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace forktail {

void EncodeFrameHeader(FrameType type, uint32_t length, uint8_t out[kFrameHeaderSize]) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(length >> (8 * i));
  out[4] = static_cast<uint8_t>(type);
  out[5] = kFrameVersion;
  out[6] = 0;
  out[7] = 0;
}

Status DecodeFrameHeader(const uint8_t in[kFrameHeaderSize], uint32_t max_payload,
                         FrameHeader* out) {
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length |= static_cast<uint32_t>(in[i]) << (8 * i);
  const uint8_t type = in[4];
  if (in[5] != kFrameVersion) {
    return Status::InvalidArgument("unsupported frame version " + std::to_string(in[5]));
  }
  if (in[6] != 0 || in[7] != 0) return Status::InvalidArgument("nonzero reserved frame bytes");
  if (type < static_cast<uint8_t>(FrameType::kRequest) ||
      type > static_cast<uint8_t>(FrameType::kPart)) {
    return Status::InvalidArgument("unknown frame type " + std::to_string(type));
  }
  const auto t = static_cast<FrameType>(type);
  if (length > max_payload) {
    return Status::InvalidArgument("frame length " + std::to_string(length) +
                                   " exceeds the limit of " + std::to_string(max_payload));
  }
  if ((t == FrameType::kDone || t == FrameType::kCancel || t == FrameType::kRetire ||
       t == FrameType::kReady) &&
      length != 0) {
    return Status::InvalidArgument("frame type " + std::to_string(type) +
                                   " must have an empty payload");
  }
  if (t == FrameType::kError &&
      (length < kSqlstateSize || length > kSqlstateSize + kMaxErrorMessage)) {
    return Status::InvalidArgument("error frame length " + std::to_string(length) +
                                   " out of range");
  }
  out->length = length;
  out->type = t;
  return Status::Ok();
}

Status WriteFrame(int fd, FrameType type, std::string_view payload) {
  uint8_t header[kFrameHeaderSize];
  EncodeFrameHeader(type, static_cast<uint32_t>(payload.size()), header);
  iovec iov[2] = {{header, kFrameHeaderSize}, {const_cast<char*>(payload.data()), payload.size()}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  size_t left = kFrameHeaderSize + payload.size();
  while (left > 0) {
    const ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(std::string("send failed: ") + std::strerror(errno));
    }
    left -= static_cast<size_t>(n);
    size_t done = static_cast<size_t>(n);
    while (done > 0 && msg.msg_iovlen > 0) {
      if (done >= msg.msg_iov[0].iov_len) {
        done -= msg.msg_iov[0].iov_len;
        ++msg.msg_iov;
        --msg.msg_iovlen;
      } else {
        msg.msg_iov[0].iov_base = static_cast<char*>(msg.msg_iov[0].iov_base) + done;
        msg.msg_iov[0].iov_len -= done;
        done = 0;
      }
    }
  }
  return Status::Ok();
}

namespace {
// Reads exactly `len` bytes; returns the number read before EOF, -1 on error.
ssize_t ReadFully(int fd, void* buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    const ssize_t n = read(fd, static_cast<char*>(buf) + got, len - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(got);
}
}  // namespace

Status ReadFrame(int fd, uint32_t max_payload, Frame* out) {
  uint8_t header[kFrameHeaderSize];
  ssize_t n = ReadFully(fd, header, kFrameHeaderSize);
  if (n < 0) return Status::IoError(std::string("receive failed: ") + std::strerror(errno));
  if (n == 0) return Status::NotFound("end of stream");
  if (static_cast<size_t>(n) < kFrameHeaderSize) return Status::IoError("truncated frame header");
  FrameHeader h;
  Status s = DecodeFrameHeader(header, max_payload, &h);
  if (!s.ok()) return s;
  out->type = h.type;
  out->payload.resize(h.length);
  n = ReadFully(fd, out->payload.data(), h.length);
  if (n < 0) return Status::IoError(std::string("receive failed: ") + std::strerror(errno));
  if (static_cast<size_t>(n) < h.length) return Status::IoError("truncated frame payload");
  return Status::Ok();
}

Status WriteMessage(int fd, FrameType type, std::string_view payload, uint32_t max_frame) {
  while (payload.size() > max_frame) {
    Status s = WriteFrame(fd, FrameType::kPart, payload.substr(0, max_frame));
    if (!s.ok()) return s;
    payload.remove_prefix(max_frame);
  }
  return WriteFrame(fd, type, payload);
}

Status ReadMessage(int fd, uint32_t max_frame, size_t max_message, Frame* out) {
  std::string parts;
  bool in_parts = false;
  while (true) {
    Status s = ReadFrame(fd, max_frame, out);
    if (!s.ok()) {
      if (in_parts && s.code() == Status::Code::kNotFound) {
        return Status::IoError("end of stream inside a message's parts");
      }
      return s;
    }
    if (out->type != FrameType::kPart && !in_parts) return Status::Ok();
    if (out->type != FrameType::kPart && out->type != FrameType::kRequest &&
        out->type != FrameType::kBatch) {
      return Status::InvalidArgument("frame type " + std::to_string(static_cast<int>(out->type)) +
                                     " after part frames");
    }
    if (parts.size() + out->payload.size() > max_message) {
      return Status::InvalidArgument("message of more than " + std::to_string(max_message) +
                                     " bytes");
    }
    parts.append(out->payload);
    in_parts = true;
    if (out->type != FrameType::kPart) {
      out->payload = std::move(parts);
      return Status::Ok();
    }
  }
}

std::string EncodeErrorPayload(std::string_view sqlstate, std::string_view message) {
  std::string out(sqlstate.substr(0, kSqlstateSize));
  out.resize(kSqlstateSize, '0');
  out.append(message.substr(0, kMaxErrorMessage));
  return out;
}

Status DecodeErrorPayload(std::string_view payload, std::string* sqlstate, std::string* message) {
  if (payload.size() < kSqlstateSize) return Status::InvalidArgument("short error frame");
  for (size_t i = 0; i < kSqlstateSize; ++i) {
    const char c = payload[i];
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'))) {
      return Status::InvalidArgument("malformed SQLSTATE in error frame");
    }
  }
  sqlstate->assign(payload.substr(0, kSqlstateSize));
  message->assign(payload.substr(kSqlstateSize));
  return Status::Ok();
}

}  // namespace forktail
