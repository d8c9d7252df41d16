#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/storage.h"

namespace forktail {
namespace {

// RFC 3720, B.4 CRC Examples.
TEST(Crc32c, Rfc3720Vectors) {
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), inc(32), dec(32);
  for (int i = 0; i < 32; i++) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(crc32c::Value(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(crc32c::Value(ones.data(), 32), 0x62a8ab43u);
  EXPECT_EQ(crc32c::Value(inc.data(), 32), 0x46dd794eu);
  EXPECT_EQ(crc32c::Value(dec.data(), 32), 0x113fdb5cu);
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xe3069283u);
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string s = "hello, forktail write-ahead log record payload";
  uint32_t whole = crc32c::Value(s.data(), s.size());
  for (size_t cut = 0; cut <= s.size(); cut++) {
    uint32_t part = crc32c::Extend(crc32c::Value(s.data(), cut), s.data() + cut, s.size() - cut);
    EXPECT_EQ(part, whole) << "cut at " << cut;
  }
}

TEST(Crc32c, MaskRoundTrips) {
  uint32_t crc = crc32c::Value("foo", 3);
  EXPECT_NE(crc32c::Mask(crc), crc);
  EXPECT_EQ(crc32c::Unmask(crc32c::Mask(crc)), crc);
}

}  // namespace
}  // namespace forktail
