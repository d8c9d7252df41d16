// TPC-C's random inputs (clause 2.1.6 and 4.3.2): uniform ranges, NURand,
// a-strings, n-strings and customer last names. Seeded, so the loader writes
// the same rows into every server it loads.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace tpcc {

// The constant C of NURand(A, x, y) for the run; the loader uses kCLastLoad.
// |kCLastRun - kCLastLoad| is in [65, 119] and not 96 or 112 (clause 2.1.6.1).
inline constexpr int kCLastLoad = 157;
inline constexpr int kCLastRun = 223;
inline constexpr int kCId = 259;
inline constexpr int kOlIId = 7911;

class Random {
 public:
  explicit Random(uint64_t seed) : gen_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  int64_t nurand(int64_t a, int64_t x, int64_t y, int64_t c) {
    return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
  }
  std::string astring(int lo, int hi) {
    static constexpr char kChars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(static_cast<size_t>(uniform(lo, hi)), ' ');
    for (char& ch : s) ch = kChars[uniform(0, sizeof(kChars) - 2)];
    return s;
  }
  std::string nstring(int lo, int hi) {
    std::string s(static_cast<size_t>(uniform(lo, hi)), '0');
    for (char& ch : s) ch = static_cast<char>('0' + uniform(0, 9));
    return s;
  }
  std::string letters(int n) {
    std::string s(static_cast<size_t>(n), 'A');
    for (char& ch : s) ch = static_cast<char>('A' + uniform(0, 25));
    return s;
  }
  // i_data / s_data: 26..50 characters, 10% of them with "ORIGINAL" inside.
  std::string data_with_original() {
    std::string s = astring(26, 50);
    if (uniform(1, 10) == 1)
      s.replace(static_cast<size_t>(uniform(0, s.size() - 8)), 8, "ORIGINAL");
    return s;
  }

 private:
  std::mt19937_64 gen_;
};

// Clause 4.3.2.3: three syllables picked by the digits of num (0..999).
inline std::string last_name(int num) {
  static const char* const kSyllables[] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                           "ESE", "ANTI",  "CALLY", "ATION", "EING"};
  return std::string(kSyllables[num / 100]) + kSyllables[(num / 10) % 10] + kSyllables[num % 10];
}

}  // namespace tpcc
