// CRC32C (Castagnoli), the checksum of WAL records, block images and SSD-tier
// slots. Debian ships no crc32c library, so this uses the SSE4.2 CRC32
// instruction when the CPU has it and a table otherwise; both are tested
// against the RFC 3720 vectors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace forktail::crc32c {

// Extends `crc` (the value returned for the data so far; 0 to start) with `n` bytes.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// A stored CRC of data that contains CRCs is masked (as LevelDB does), so a
// CRC of a CRC does not degenerate.
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace forktail::crc32c
