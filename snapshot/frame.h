// The snapshot IPC protocol: framed messages over a Unix-domain stream socket.
//
// One connection carries one request. The parent connects to the snapshot
// process's listening socket and:
//
//   parent -> child   Request(bytes)                 exactly one, first
//   child  -> parent  Batch(bytes)*  then  Done | Error(SQLSTATE, message)
//   parent -> child   Cancel   (any time after Request; the child answers
//                              Error 57014 at its next batch, or Done if it
//                              had already finished)
//
// The control channel (a socketpair made before fork) carries Ready from the
// child once it has started (the parent hands out no lease before), and
// Retire from the parent; its EOF tells the child that the parent is gone
// (same as Retire).
//
// Every frame:
//
//    0           4        5        6                 8
//   +-----------+--------+--------+-----------------+---------------------+
//   | length    | type   | version| reserved (= 0)  | payload (length B)  |
//   | u32 LE    | u8     | u8 = 1 | u16             |                     |
//   +-----------+--------+--------+-----------------+---------------------+
//
// A Request or Batch larger than one frame's bound (16 MiB) is streamed as
// Part frames, each carrying the next piece of its payload, followed by the
// Request or Batch frame with the last piece: query texts and result values
// reach PostgreSQL's 1 GiB while every frame stays bounded.
//
// Error payload: 5 ASCII bytes of SQLSTATE, then the message (<= 4 KiB).
// Done, Cancel, Retire and Ready have empty payloads. A reader checks the header
// before reading the payload (length against its bound, type, version,
// reserved, per-type length), so a bad frame costs at most 8 bytes of reading
// and is answered with Error 08P01 (protocol_violation) and the connection is
// closed; nothing else is affected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace forktail {

enum class FrameType : uint8_t {
  kRequest = 1,
  kBatch = 2,
  kError = 3,
  kDone = 4,
  kCancel = 5,
  kRetire = 6,
  kReady = 7,
  kPart = 8,
};

inline constexpr size_t kFrameHeaderSize = 8;
inline constexpr uint8_t kFrameVersion = 1;
inline constexpr uint32_t kDefaultMaxFramePayload = 16u << 20;
// A whole Request or Batch, its Parts included: PostgreSQL's 1 GiB for a
// query text or a value, plus room for the rest of the row or request.
inline constexpr size_t kMaxMessagePayload = (size_t{1} << 30) + (size_t{64} << 20);
inline constexpr uint32_t kMaxErrorMessage = 4096;
inline constexpr size_t kSqlstateSize = 5;
static_assert(kFrameHeaderSize == sizeof(uint32_t) + 2 * sizeof(uint8_t) + sizeof(uint16_t));

// SQLSTATEs of this module that storage/error.h does not list (PostgreSQL
// Appendix A).
namespace snapshot_sqlstate {
inline constexpr const char* kProtocolViolation = "08P01";
inline constexpr const char* kConnectionFailure = "08006";
inline constexpr const char* kInsufficientResources = "53000";
inline constexpr const char* kCrashShutdown = "57P02";
}  // namespace snapshot_sqlstate

struct FrameHeader {
  uint32_t length = 0;
  FrameType type = FrameType::kRequest;
};

struct Frame {
  FrameType type = FrameType::kRequest;
  std::string payload;
};

void EncodeFrameHeader(FrameType type, uint32_t length, uint8_t out[kFrameHeaderSize]);

// Checks a header against the bound; the message says what is wrong.
Status DecodeFrameHeader(const uint8_t in[kFrameHeaderSize], uint32_t max_payload,
                         FrameHeader* out);

// Writes one frame (MSG_NOSIGNAL: a vanished peer is an error, not SIGPIPE).
Status WriteFrame(int fd, FrameType type, std::string_view payload);

// Reads one frame. Status::NotFound at a clean EOF before the header,
// InvalidArgument for a malformed frame, IoError for a socket error or an EOF
// inside a frame.
Status ReadFrame(int fd, uint32_t max_payload, Frame* out);

// A Request or Batch of any size up to kMaxMessagePayload: Part frames of
// `max_frame` bytes, then `type` with the rest.
Status WriteMessage(int fd, FrameType type, std::string_view payload, uint32_t max_frame);

// Reads one frame, gathering Parts into the Request or Batch that ends them.
// InvalidArgument also for a Part before another type, or Parts that pass
// `max_message` bytes in all.
Status ReadMessage(int fd, uint32_t max_frame, size_t max_message, Frame* out);

std::string EncodeErrorPayload(std::string_view sqlstate, std::string_view message);
Status DecodeErrorPayload(std::string_view payload, std::string* sqlstate, std::string* message);

}  // namespace forktail
