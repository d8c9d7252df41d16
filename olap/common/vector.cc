#include "olap/common/vector.h"

#include <algorithm>

namespace forktail {

PhysicalType PhysicalTypeOf(const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean:
      return PhysicalType::kBool;
    case TypeId::kSmallInt:
      return PhysicalType::kInt16;
    case TypeId::kInteger:
    case TypeId::kDate:
      return PhysicalType::kInt32;
    case TypeId::kDecimal:
      return type.IsWideDecimal() ? PhysicalType::kInt128 : PhysicalType::kInt64;
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return PhysicalType::kInt64;
    case TypeId::kDouble:
      return PhysicalType::kDouble;
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      return PhysicalType::kString;
  }
  abort();
}

uint32_t PhysicalWidth(PhysicalType p) {
  switch (p) {
    case PhysicalType::kBool:
      return 1;
    case PhysicalType::kInt16:
      return 2;
    case PhysicalType::kInt32:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kString:
      return sizeof(std::string_view);
    case PhysicalType::kInt128:
      return sizeof(__int128);
  }
  abort();
}

char* StringArena::Allocate(size_t n) {
  used_total_ += n;
  if (used_ + n > kChunkBytes || chunks_.empty()) {
    if (n > kChunkBytes) {  // an oversized chunk of its own, used up at once
      chunks_.emplace_back(new char[n]);
      used_ = kChunkBytes;
      return chunks_.back().get();
    }
    chunks_.emplace_back(new char[kChunkBytes]);
    used_ = 0;
  }
  char* p = chunks_.back().get() + used_;
  used_ += n;
  return p;
}

std::string_view StringArena::Add(std::string_view s) {
  if (s.empty()) return {};
  char* p = Allocate(s.size());
  memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

std::string_view StringArena::AddReusing(std::string_view s) {
  if (s.empty()) return {};
  if (!recent_) recent_.reset(new Copy[kReuseSlots]);
  uintptr_t address = reinterpret_cast<uintptr_t>(s.data());
  Copy& slot = recent_[(address ^ (address >> 12)) % kReuseSlots];
  if (slot.source == s.data() && slot.copy.size() == s.size() &&
      memcmp(slot.copy.data(), s.data(), s.size()) == 0) {
    return slot.copy;
  }
  slot = {s.data(), Add(s)};
  return slot.copy;
}

namespace {

// Value buffers a thread freed, for its next Vector::Reset (BufferRecycler).
// Bounded, so a thread that built many vectors at once (a wide join) keeps
// at most kKept of them; emptied when the thread ends.
class RecycledBuffers {
 public:
  static constexpr size_t kKept = 64;  // 2 MiB

  ~RecycledBuffers() {
    for (uint64_t* b : buffers_) delete[] b;
    buffers_.clear();
    gone_ = true;
  }
  uint64_t* Take() {
    if (buffers_.empty()) {
      // 16 bytes per slot covers string_view and __int128, the widest
      // elements (operator new aligns to 16, as __int128 needs).
      return new uint64_t[kVectorSize * 2];
    }
    uint64_t* b = buffers_.back();
    buffers_.pop_back();
    return b;
  }
  // Thread-local destructors run in no fixed order: a vector freed after
  // this thread's list is gone frees its buffer.
  static void Give(uint64_t* buffer) {
    if (gone_ || list_.buffers_.size() >= kKept) {
      delete[] buffer;
      return;
    }
    list_.buffers_.push_back(buffer);
  }
  static RecycledBuffers& List() { return list_; }

 private:
  std::vector<uint64_t*> buffers_;
  static thread_local RecycledBuffers list_;
  static thread_local bool gone_;
};

thread_local RecycledBuffers RecycledBuffers::list_;
thread_local bool RecycledBuffers::gone_ = false;

}  // namespace

void Vector::BufferRecycler::operator()(uint64_t* buffer) const { RecycledBuffers::Give(buffer); }

void Vector::Reset(const Type& type) {
  type_ = type;
  physical_ = PhysicalTypeOf(type);
  if (owned_ == nullptr) owned_.reset(RecycledBuffers::List().Take());
  data_ = owned_.get();
  nulls_ = nullptr;
}

namespace {

// The block's bitmap from row `first` on, or nullptr when none of the
// chunk's rows is NULL: kernels then take their no-NULL loops (most columns
// of most blocks hold no NULL, but every block has a bitmap).
const uint64_t* WrappedNulls(const uint64_t* null_bitmap, uint32_t first, uint32_t count) {
  if (null_bitmap == nullptr) return nullptr;
  const uint64_t* n = null_bitmap + first / 64;
  uint64_t any = 0;
  for (uint32_t w = 0; w < count / 64; ++w) any |= n[w];
  if (count % 64 != 0) any |= n[count / 64] & ((uint64_t{1} << (count % 64)) - 1);
  return any == 0 ? nullptr : n;
}

}  // namespace

void Vector::WrapStripe(const Type& type, const void* stripe, const uint64_t* null_bitmap,
                        uint32_t first, uint32_t count) {
  assert(first % 64 == 0);
  type_ = type;
  physical_ = PhysicalTypeOf(type);
  assert(physical_ != PhysicalType::kString);
  data_ = static_cast<const char*>(stripe) + size_t{first} * PhysicalWidth(physical_);
  nulls_ = WrappedNulls(null_bitmap, first, count);
}

void Vector::WrapStringRefs(const Type& type, const void* refs, const char* heap,
                            const uint64_t* null_bitmap, uint32_t first, uint32_t count) {
  assert(first % 64 == 0 && count <= kVectorSize);
  Reset(type);
  struct Ref {
    uint32_t offset;
    uint32_t length;
  };
  const Ref* r = static_cast<const Ref*>(refs) + first;
  auto* out = mutable_data<std::string_view>();
  for (uint32_t i = 0; i < count; ++i) out[i] = std::string_view(heap + r[i].offset, r[i].length);
  nulls_ = WrappedNulls(null_bitmap, first, count);
}

uint64_t* Vector::mutable_nulls() {
  if (owned_nulls_ == nullptr) owned_nulls_.reset(new uint64_t[kVectorSize / 64]);
  if (nulls_ != owned_nulls_.get()) {
    if (nulls_ == nullptr) {
      memset(owned_nulls_.get(), 0, kVectorSize / 8);
    } else {
      memcpy(owned_nulls_.get(), nulls_, kVectorSize / 8);
    }
    nulls_ = owned_nulls_.get();
  }
  return owned_nulls_.get();
}

void Vector::KeepAlive(std::shared_ptr<StringArena> arena) { arenas_.push_back(std::move(arena)); }

StringArena* Vector::arena() {
  if (own_arena_ == nullptr) own_arena_ = std::make_shared<StringArena>();
  return own_arena_.get();
}

void Vector::ShareAuxiliary(const Vector& other) {
  // Vectors packed from many chunks share the same few arenas: keep each once.
  auto keep = [&](const std::shared_ptr<StringArena>& a) {
    if (std::find(arenas_.begin(), arenas_.end(), a) == arenas_.end()) arenas_.push_back(a);
  };
  for (const auto& a : other.arenas_) keep(a);
  if (other.own_arena_ != nullptr) keep(other.own_arena_);
}

}  // namespace forktail
