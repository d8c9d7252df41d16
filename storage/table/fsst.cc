#include "storage/table/fsst.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <numeric>
#include <utility>

namespace forktail::fsst {

namespace {

// Up to 8 bytes of s as a little-endian word, zero past `left`.
uint64_t LoadWord(const uint8_t* s, size_t left) {
  uint64_t w = 0;
  std::memcpy(&w, s, std::min<size_t>(left, 8));
  return w;
}

uint64_t LowBytes(uint32_t length) {
  return length >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * length)) - 1;
}

// Training counts units: codes 0..254 of the current table, and 256 + b for
// a byte b that the table had to escape.
constexpr uint32_t kUnits = 512;
constexpr uint32_t kRounds = 5;

struct Candidate {
  uint64_t bytes;
  uint32_t length;
  bool operator<(const Candidate& o) const {
    return length != o.length ? length < o.length : bytes < o.bytes;
  }
};

}  // namespace

Encoder::Encoder(const SymbolTable& table) : table_(table), start_(65537, 0) {
  std::fill(std::begin(single_), std::end(single_), int16_t{-1});
  std::vector<uint8_t> longer;  // codes of symbols of two bytes or more
  for (uint32_t code = 0; code < table.count; code++) {
    if (table.lengths[code] == 1) {
      single_[table.symbols[code] & 0xff] = static_cast<int16_t>(code);
    } else {
      longer.push_back(static_cast<uint8_t>(code));
    }
  }
  auto prefix = [&](uint8_t code) { return static_cast<uint16_t>(table.symbols[code]); };
  std::sort(longer.begin(), longer.end(), [&](uint8_t a, uint8_t b) {
    if (prefix(a) != prefix(b)) return prefix(a) < prefix(b);
    if (table.lengths[a] != table.lengths[b]) return table.lengths[a] > table.lengths[b];
    return a < b;
  });
  std::copy(longer.begin(), longer.end(), by_prefix_);
  for (uint8_t code : longer) start_[prefix(code) + 1]++;
  for (uint32_t p = 0; p < 65536; p++) start_[p + 1] += start_[p];
}

int Encoder::Match(const uint8_t* s, size_t left, uint32_t* length) const {
  if (left >= 2) {
    const uint64_t word = LoadWord(s, left);
    const uint32_t p = static_cast<uint16_t>(word);
    for (uint32_t k = start_[p]; k < start_[p + 1]; k++) {
      const uint8_t code = by_prefix_[k];
      const uint32_t n = table_.lengths[code];
      if (n <= left && (word & LowBytes(n)) == table_.symbols[code]) {
        *length = n;
        return code;
      }
    }
  }
  *length = 1;
  return single_[s[0]];
}

void Encoder::Encode(std::string_view s, std::vector<uint8_t>* out) const {
  const size_t at = out->size();
  out->resize(at + 2 * s.size());
  uint8_t* o = out->data() + at;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t left = s.size();
  while (left > 0) {
    uint32_t n = 1;
    const int code = Match(p, left, &n);
    if (code < 0) {
      *o++ = kEscape;
      *o++ = *p;
    } else {
      *o++ = static_cast<uint8_t>(code);
    }
    p += n;
    left -= n;
  }
  out->resize(static_cast<size_t>(o - out->data()));
}

SymbolTable Train(const std::vector<std::string_view>& sample) {
  SymbolTable table;
  std::vector<uint32_t> single(kUnits);
  std::vector<uint32_t> pair(kUnits * kUnits);
  for (uint32_t round = 0; round < kRounds; round++) {
    std::fill(single.begin(), single.end(), 0);
    std::fill(pair.begin(), pair.end(), 0);
    const Encoder encoder(table);
    for (std::string_view s : sample) {
      const auto* p = reinterpret_cast<const uint8_t*>(s.data());
      size_t left = s.size();
      uint32_t prev = kUnits;
      while (left > 0) {
        uint32_t n = 1;
        const int code = encoder.Match(p, left, &n);
        const uint32_t unit = code >= 0 ? static_cast<uint32_t>(code) : 256 + *p;
        single[unit]++;
        if (prev != kUnits) pair[prev * kUnits + unit]++;
        prev = unit;
        p += n;
        left -= n;
      }
    }
    auto symbol_of = [&](uint32_t unit) {
      return unit < 256 ? Candidate{table.symbols[unit], table.lengths[unit]}
                        : Candidate{unit - 256, 1};
    };
    // Gain: the bytes a candidate would cover in the sample. One-byte
    // symbols count eight times over: without one, each of its bytes costs
    // an escape (two bytes), and an early table of long symbols only would
    // leave most of the text escaped (FSST's reference does the same). A
    // symbol may come from several pairs ("ab" + "c" and "a" + "bc"): its
    // gains are summed after sorting.
    std::vector<std::pair<Candidate, uint64_t>> gains;
    for (uint32_t u = 0; u < kUnits; u++) {
      if (single[u] == 0) continue;
      const Candidate c = symbol_of(u);
      gains.emplace_back(c, uint64_t{single[u]} * c.length * (c.length == 1 ? 8 : 1));
    }
    for (uint32_t a = 0; a < kUnits; a++) {
      if (single[a] == 0) continue;
      const Candidate first = symbol_of(a);
      if (first.length == kMaxSymbolLength) continue;
      for (uint32_t b = 0; b < kUnits; b++) {
        const uint32_t count = pair[a * kUnits + b];
        if (count == 0) continue;
        const Candidate second = symbol_of(b);
        const uint32_t length = std::min(kMaxSymbolLength, first.length + second.length);
        const uint64_t bytes =
            (first.bytes | (second.bytes << (8 * first.length))) & LowBytes(length);
        gains.emplace_back(Candidate{bytes, length}, uint64_t{count} * length);
      }
    }
    std::sort(gains.begin(), gains.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::pair<uint64_t, Candidate>> ranked;
    for (size_t i = 0; i < gains.size(); i++) {
      if (i > 0 && !(gains[i - 1].first < gains[i].first)) {
        ranked.back().first += gains[i].second;
      } else {
        ranked.emplace_back(gains[i].second, gains[i].first);
      }
    }
    // Highest gain first; ties by the longer, then the smaller symbol.
    std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first > y.first;
      return y.second < x.second;
    });
    SymbolTable next;
    for (const auto& [gain, c] : ranked) {
      if (next.count == kMaxSymbols) break;
      next.symbols[next.count] = c.bytes;
      next.lengths[next.count] = static_cast<uint8_t>(c.length);
      next.count++;
    }
    table = next;
  }
  return table;
}

size_t DecodedSize(const uint8_t* lengths, const uint8_t* codes, size_t n) {
  size_t size = 0;
  for (size_t i = 0; i < n; i++) {
    if (codes[i] == kEscape) {
      size++;
      i++;
    } else {
      size += lengths[codes[i]];
    }
  }
  return size;
}

size_t Decode(const uint64_t* symbols, const uint8_t* lengths, const uint8_t* codes, size_t n,
              char* out) {
  char* const start = out;
  for (size_t i = 0; i < n; i++) {
    const uint8_t code = codes[i];
    if (code != kEscape) {
      std::memcpy(out, &symbols[code], 8);
      out += lengths[code];
    } else {
      *out++ = static_cast<char>(codes[++i]);
    }
  }
  return static_cast<size_t>(out - start);
}

bool Valid(uint32_t count, const uint8_t* codes, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (codes[i] == kEscape) {
      if (++i >= n) return false;
    } else if (codes[i] >= count) {
      return false;
    }
  }
  return true;
}

bool ContainsMatcher::Supports(const std::vector<std::string>& literals) {
  size_t bytes = 0;
  for (const std::string& l : literals) bytes += l.size();
  return bytes <= kMaxLiteralBytes;
}

ContainsMatcher::ContainsMatcher(const uint64_t* symbols, const uint8_t* lengths, uint32_t count,
                                 const std::vector<std::string>& literals) {
  // States: for literal i starting at state base_i, base_i + j means its
  // first j bytes are matched; past the last literal, accept_.
  for (const std::string& l : literals) accept_ += static_cast<uint32_t>(l.size());
  const uint32_t states = accept_ + 1;
  by_byte_.assign(size_t{states} * 256, 0);
  uint32_t base = 0;
  for (const std::string& l : literals) {
    if (l.empty()) continue;
    const auto n = static_cast<uint32_t>(l.size());
    // KMP: the state after a mismatch at j is that of the longest proper
    // border of l[0, j), whose row is already filled.
    uint32_t border = 0;
    for (uint32_t j = 0; j < n; j++) {
      uint8_t* row = &by_byte_[size_t{base + j} * 256];
      if (j == 0) {
        std::fill(row, row + 256, static_cast<uint8_t>(base));
      } else {
        std::memcpy(row, &by_byte_[size_t{base + border} * 256], 256);
        border = by_byte_[size_t{base + border} * 256 + static_cast<uint8_t>(l[j])] - base;
      }
      row[static_cast<uint8_t>(l[j])] = static_cast<uint8_t>(base + j + 1);
    }
    base += n;
  }
  std::fill(&by_byte_[size_t{accept_} * 256], &by_byte_[size_t{states} * 256],
            static_cast<uint8_t>(accept_));
  by_code_.assign(size_t{states} * 256, 0);
  for (uint32_t state = 0; state < states; state++) {
    for (uint32_t code = 0; code < count; code++) {
      uint32_t s = state;
      const uint64_t symbol = symbols[code];
      for (uint32_t b = 0; b < lengths[code]; b++) {
        s = by_byte_[size_t{s} * 256 + static_cast<uint8_t>(symbol >> (8 * b))];
      }
      by_code_[size_t{state} * 256 + code] = static_cast<uint8_t>(s);
    }
  }
}

}  // namespace forktail::fsst
