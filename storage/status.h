// Status: the result of an I/O operation in the layers that talk to files
// (recovery, tiering). It must be looked at: dropping one is a compile error.
#pragma once

#include <string>
#include <utility>

namespace forktail {

class [[nodiscard]] Status {
 public:
  enum class Code { kOk, kIoError, kCorruption, kNotFound, kInvalidArgument, kNoSpace, kBusy };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status IoError(std::string m) { return Status(Code::kIoError, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::kCorruption, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status InvalidArgument(std::string m) {
    return Status(Code::kInvalidArgument, std::move(m));
  }
  static Status NoSpace(std::string m) { return Status(Code::kNoSpace, std::move(m)); }
  static Status Busy(std::string m) { return Status(Code::kBusy, std::move(m)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Marks a deliberately ignored status (e.g. best-effort cleanup on an error path).
  void PermitUnchecked() const {}

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace forktail
