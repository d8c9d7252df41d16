// BinaryCopyParser: the PGCOPY stream of COPY ... FROM (FORMAT binary), fed
// in chunks (copy_binary.h).
//
// Input is appended to buf_ and parsed from pos_. A tuple is handed out only
// once all of it is in the buffer, so a tuple split across CopyData messages
// waits for the rest; its fields are views into buf_, valid during the row
// callback. Errors that PostgreSQL reports while reading (field count, field
// size) are raised as soon as their bytes are here; "unexpected EOF" only
// when the input ends.
#include "olap/session/format/copy_binary.h"

namespace forktail {
namespace {

int64_t ReadInt(std::string_view bytes, size_t at, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  if (size == 2) return static_cast<int16_t>(v);
  return static_cast<int32_t>(v);
}

constexpr uint32_t kOidsFlag = 1u << 16;

}  // namespace

BinaryCopyParser::BinaryCopyParser(std::string relation, std::vector<std::string> columns,
                                   RowFn on_row)
    : relation_(std::move(relation)), columns_(std::move(columns)), on_row_(std::move(on_row)) {}

void BinaryCopyParser::Fail(const std::string& message, const std::string& context) const {
  throw DbError(sqlstate::kBadCopyFileFormat,
                context.empty() ? message : message + "\nCONTEXT:  " + context);
}

std::string BinaryCopyParser::LineContext() const {
  return "COPY " + relation_ + ", line " + std::to_string(line_ + 1);
}

void BinaryCopyParser::Feed(std::string_view bytes) {
  bytes_seen_ += bytes.size();
  if (ended_) {
    if (!bytes.empty()) {
      Fail("received copy data after EOF marker",
           "COPY " + relation_ + ", line " + std::to_string(line_));
    }
    return;
  }
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
  while (!ended_ && Next(false)) {
  }
}

void BinaryCopyParser::Finish() {
  while (!ended_ && Next(true)) {
  }
  buf_.clear();
  pos_ = 0;
}

bool BinaryCopyParser::Next(bool at_end) { return header_done_ ? Tuple(at_end) : Header(at_end); }

bool BinaryCopyParser::Header(bool at_end) {
  const std::string_view b(buf_);
  const size_t n = b.size();
  if (n < kCopyBinarySignature.size() ||
      b.substr(0, kCopyBinarySignature.size()) != kCopyBinarySignature) {
    if (n >= kCopyBinarySignature.size() || at_end) Fail("COPY file signature not recognized", "");
    return false;
  }
  size_t at = kCopyBinarySignature.size();
  if (n < at + 4) {
    if (at_end) Fail("invalid COPY file header (missing flags)", "");
    return false;
  }
  uint32_t flags = static_cast<uint32_t>(ReadInt(b, at, 4));
  if ((flags & kOidsFlag) != 0) Fail("invalid COPY file header (WITH OIDS)", "");
  flags &= ~kOidsFlag;
  if ((flags >> 16) != 0) Fail("unrecognized critical flags in COPY file header", "");
  at += 4;
  if (n < at + 4) {
    if (at_end) Fail("invalid COPY file header (missing length)", "");
    return false;
  }
  const int64_t extension = ReadInt(b, at, 4);
  if (extension < 0) Fail("invalid COPY file header (missing length)", "");
  at += 4;
  if (n - at < static_cast<uint64_t>(extension)) {
    if (at_end) Fail("invalid COPY file header (wrong length)", "");
    return false;
  }
  pos_ = at + static_cast<size_t>(extension);
  header_done_ = true;
  return true;
}

bool BinaryCopyParser::Tuple(bool at_end) {
  const std::string_view b(buf_);
  const size_t n = b.size();
  // Fewer bytes than a field count at the end of the input: the end of the
  // data, as PostgreSQL reads it.
  if (n - pos_ < 2) return false;
  const int64_t count = ReadInt(b, pos_, 2);
  if (count == -1) {
    line_++;
    ended_ = true;
    pos_ += 2;
    if (pos_ < n) {
      Fail("received copy data after EOF marker",
           "COPY " + relation_ + ", line " + std::to_string(line_));
    }
    return false;
  }
  if (count != static_cast<int64_t>(columns_.size())) {
    Fail("row field count is " + std::to_string(count) + ", expected " +
             std::to_string(columns_.size()),
         LineContext());
  }
  fields_.clear();
  size_t at = pos_ + 2;
  for (size_t i = 0; i < columns_.size(); i++) {
    auto fail = [&](const char* message) {
      Fail(message, LineContext() + ", column " + columns_[i]);
    };
    if (n - at < 4) {
      if (at_end) fail("unexpected EOF in COPY data");
      return false;
    }
    const int64_t size = ReadInt(b, at, 4);
    at += 4;
    if (size == -1) {
      fields_.push_back({{}, true});
      continue;
    }
    if (size < -1) fail("invalid field size");
    if (n - at < static_cast<uint64_t>(size)) {
      if (at_end) fail("unexpected EOF in COPY data");
      return false;
    }
    fields_.push_back({b.substr(at, static_cast<size_t>(size)), false});
    at += static_cast<size_t>(size);
  }
  line_++;
  pos_ = at;
  CopyRow row{fields_, line_, {}};
  row.binary = true;
  on_row_(row);
  return true;
}

}  // namespace forktail
