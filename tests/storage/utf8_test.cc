// UTF-8 validation (storage/value/utf8.h): what is valid, where the first invalid
// sequence starts, and PostgreSQL's message naming its bytes.
#include "storage/value/utf8.h"

#include <gtest/gtest.h>

#include "storage/error.h"

namespace forktail {
namespace {

constexpr size_t kNone = std::string_view::npos;

TEST(Utf8Test, ValidText) {
  EXPECT_EQ(FindInvalidUtf8(""), kNone);
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), kNone);
  EXPECT_EQ(FindInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), kNone);  // é € 😀
  EXPECT_EQ(FindInvalidUtf8("\xf4\x8f\xbf\xbf"), kNone);                           // U+10FFFF
}

TEST(Utf8Test, InvalidSequencesAndWhereTheyStart) {
  EXPECT_EQ(FindInvalidUtf8("a\xff\xfe"
                            "b"),
            1u);
  EXPECT_EQ(FindInvalidUtf8(std::string_view("ab\0c", 4)), 2u);  // NUL
  EXPECT_EQ(FindInvalidUtf8("x\x80"), 1u);                       // lone continuation
  EXPECT_EQ(FindInvalidUtf8("\xc3"), 0u);                        // truncated
  EXPECT_EQ(FindInvalidUtf8("\xe2\x28\xa1"), 0u);                // bad continuation
  EXPECT_EQ(FindInvalidUtf8("\xc0\xaf"), 0u);                    // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("ok\xed\xa0\x80"), 2u);              // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);            // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xf8\x88\x80\x80\x80"), 0u);        // 5-byte form
}

TEST(Utf8Test, PostgresMessageNamesTheBytes) {
  EXPECT_EQ(InvalidUtf8Message("a\xff\xfe", 1),
            "invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(InvalidUtf8Message("\xe2\x28\xa1", 0),
            "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1");
  EXPECT_EQ(InvalidUtf8Message("\xe2\x28", 0),
            "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28");  // what is there
  try {
    CheckUtf8("a\xff", 7);
    FAIL() << "accepted";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "22021");
    EXPECT_EQ(e.position(), 7);
  }
  CheckUtf8("fine \xc3\xa9");
}

}  // namespace
}  // namespace forktail
