#include "storage/status.h"

namespace forktail {

std::string Status::ToString() const {
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kIoError:
      return "IO error: " + message_;
    case Code::kCorruption:
      return "corruption: " + message_;
    case Code::kNotFound:
      return "not found: " + message_;
    case Code::kInvalidArgument:
      return "invalid argument: " + message_;
    case Code::kNoSpace:
      return "no space left: " + message_;
    case Code::kBusy:
      return "busy: " + message_;
  }
  return "unknown status";
}

}  // namespace forktail
