// FrozenArena: where frozen block images live (block.h, "Frozen blocks").
//
// Why not malloc: a plain block is one 2 MiB mapping the kernel backs with
// one huge page, so fork() copies one page-table entry for it; a frozen image
// (a few hundred KiB) from malloc sits in 4 KiB pages, 256 entries per 2 MiB.
// With TPC-H SF1 frozen over the wire, a snapshot's fork() took 27-43 ms for
// 1.1 GB resident against 16-24 ms for the 2 GB of plain blocks. Here the
// images are packed back to back into one large reservation marked
// MADV_HUGEPAGE, so that the pages they fill are huge pages again.
//
// Layout: one PROT_READ|WRITE, MAP_NORESERVE reservation (kReserveBytes of
// address space, nothing resident until touched), 2 MiB aligned. Allocation
// is first fit over the holes freed below the top, else a bump of the top.
// A freed range merges with its neighbours; the 2 MiB pages a hole covers
// whole are given back (MADV_DONTNEED), and a hole that reaches the top
// lowers it. When the reservation cannot be made (an address-space limit)
// or is full, images come from operator new, as before; so do they under
// ASan and TSan, which then still see reads past an image.
//
// Threads: any (a mutex; an allocation per frozen block, so rare). A forked
// snapshot inherits the mapping copy-on-write like the rest of the heap; it
// never freezes, loads or frees frozen blocks (it reads its image and exits),
// so a lock another parent thread held at the fork does not matter to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace forktail {

class FrozenArena {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kReserveBytes = size_t{1} << 40;  // 1 TiB of address space

  // The process's arena (its reservation made on first use).
  static FrozenArena& Global();

  // `reserve_bytes` of address space (a multiple of kHugePage; 0: none,
  // every allocation from operator new); tests use small ones.
  explicit FrozenArena(size_t reserve_bytes);
  ~FrozenArena();
  FrozenArena(const FrozenArena&) = delete;
  FrozenArena& operator=(const FrozenArena&) = delete;

  // `bytes` (a positive multiple of 8) of 8-byte-aligned memory, contents
  // unspecified; Free takes it back with the same size.
  uint64_t* Allocate(size_t bytes);
  void Free(uint64_t* p, size_t bytes);

  // Whether p lies in the reservation (false for the operator new fallback).
  bool Owns(const void* p) const;
  // Bytes handed out from the reservation and not freed; the top of the
  // bump region; the holes below it (tests).
  size_t used_bytes() const;
  size_t top_bytes() const;
  size_t hole_count() const;

 private:
  uint8_t* base_ = nullptr;  // null: no reservation, everything falls back
  size_t capacity_ = 0;
  mutable std::mutex mu_;
  size_t top_ = 0;                  // offset of the first never-used byte
  size_t used_ = 0;                 // guarded by mu_
  std::map<size_t, size_t> holes_;  // offset -> size, below top_, coalesced
};

// A frozen image's bytes from FrozenArena::Global(): owned, movable.
class FrozenBytes {
 public:
  FrozenBytes() = default;
  explicit FrozenBytes(size_t bytes)
      : data_(FrozenArena::Global().Allocate(bytes)), bytes_(bytes) {}
  ~FrozenBytes() { Reset(); }
  FrozenBytes(FrozenBytes&& o) noexcept : data_(o.data_), bytes_(o.bytes_) {
    o.data_ = nullptr;
    o.bytes_ = 0;
  }
  FrozenBytes& operator=(FrozenBytes&& o) noexcept {
    if (this != &o) {
      Reset();
      data_ = o.data_;
      bytes_ = o.bytes_;
      o.data_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }

  uint64_t* get() const { return data_; }
  bool operator==(std::nullptr_t) const { return data_ == nullptr; }

 private:
  void Reset() {
    if (data_ != nullptr) FrozenArena::Global().Free(data_, bytes_);
    data_ = nullptr;
    bytes_ = 0;
  }
  uint64_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace forktail
