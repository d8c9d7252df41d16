#include "server/wire_format.h"

#include <cassert>
#include <cstring>

namespace forktail {

void WireReader::Need(size_t n) const {
  if (remaining() < n) throw ProtocolError("invalid message format");
}

uint8_t WireReader::ReadByte() {
  Need(1);
  return static_cast<uint8_t>(data_[pos_++]);
}

int16_t WireReader::ReadInt16() {
  Need(2);
  auto v = static_cast<uint16_t>(GetBigEndian(data_.substr(pos_, 2)));
  pos_ += 2;
  return static_cast<int16_t>(v);
}

int32_t WireReader::ReadInt32() {
  Need(4);
  auto v = static_cast<uint32_t>(GetBigEndian(data_.substr(pos_, 4)));
  pos_ += 4;
  return static_cast<int32_t>(v);
}

std::string_view WireReader::ReadString() {
  size_t nul = data_.find('\0', pos_);
  if (nul == std::string_view::npos) throw ProtocolError("invalid string in message");
  std::string_view s = data_.substr(pos_, nul - pos_);
  pos_ = nul + 1;
  return s;
}

std::string_view WireReader::ReadBytes(size_t n) {
  Need(n);
  std::string_view s = data_.substr(pos_, n);
  pos_ += n;
  return s;
}

void WireReader::ExpectEnd() const {
  if (!AtEnd()) throw ProtocolError("invalid message format");
}

void WireWriter::Begin(char type) {
  assert(start_ == std::string::npos && "WireWriter: message already open");
  out_->push_back(type);
  start_ = out_->size();
  Int32(0);
}

void WireWriter::BeginUntyped() {
  assert(start_ == std::string::npos && "WireWriter: message already open");
  start_ = out_->size();
  Int32(0);
}

void WireWriter::End() {
  assert(start_ != std::string::npos && "WireWriter: no open message");
  auto len = static_cast<uint32_t>(out_->size() - start_);
  for (int i = 0; i < 4; ++i) (*out_)[start_ + i] = static_cast<char>((len >> (24 - 8 * i)) & 0xff);
  start_ = std::string::npos;
}

void WireWriter::Int16(int16_t v) { PutBigEndian(out_, static_cast<uint16_t>(v), 2); }
void WireWriter::Int32(int32_t v) { PutBigEndian(out_, static_cast<uint32_t>(v), 4); }
void WireWriter::Int64(int64_t v) { PutBigEndian(out_, static_cast<uint64_t>(v), 8); }

void WireWriter::String(std::string_view s) {
  out_->append(s);
  out_->push_back('\0');
}

}  // namespace forktail
