// DataChunk: a horizontal slice of a relation, several Vectors over the same
// physical rows 0..size-1, and the selection of rows that are live.
//
// sel == nullptr means rows 0..size-1 are all live (the common case straight
// off a scan); otherwise sel lists `count` live physical row indexes in
// ascending order. Filters only shrink `sel`; they never move values, so a
// chunk wrapped around block stripes stays zero-copy until a join or an
// aggregate materializes it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "olap/common/vector.h"
#include "storage/value/value.h"

namespace forktail {

// Row indexes (physical) of the live rows, ascending. The kVectorSize slots
// (8 KiB) are allocated on the first writable access: most chunks (join and
// aggregate outputs, unfiltered scans) never get a selection, and every
// DataChunk has one.
class SelectionVector {
 public:
  SelectionVector() = default;
  uint32_t* data() {
    if (idx_ == nullptr) idx_.reset(new uint32_t[kVectorSize]);
    return idx_.get();
  }
  // Null until a writable access allocated the slots.
  const uint32_t* data() const { return idx_.get(); }
  uint32_t operator[](uint32_t i) const { return idx_[i]; }
  uint32_t& operator[](uint32_t i) { return data()[i]; }

 private:
  std::unique_ptr<uint32_t[]> idx_;
};

// A row range to iterate: either a selection or the dense prefix.
struct Rows {
  const uint32_t* sel = nullptr;  // nullptr: 0..count-1
  uint32_t count = 0;
  uint32_t operator[](uint32_t i) const { return sel == nullptr ? i : sel[i]; }
};

// Calls f(row) for every live row; the branch on `sel` is hoisted so each
// loop is a tight one the compiler can vectorize.
template <typename F>
inline void ForEachRow(const Rows& rows, F&& f) {
  if (rows.sel == nullptr) {
    for (uint32_t i = 0; i < rows.count; ++i) f(i);
  } else {
    for (uint32_t i = 0; i < rows.count; ++i) f(rows.sel[i]);
  }
}

class DataChunk {
 public:
  DataChunk() = default;
  // Owned vectors of these types, size 0.
  explicit DataChunk(const std::vector<Type>& types);

  DataChunk(DataChunk&&) = default;
  DataChunk& operator=(DataChunk&&) = default;

  size_t column_count() const { return columns_.size(); }
  Vector& column(size_t i) { return columns_[i]; }
  const Vector& column(size_t i) const { return columns_[i]; }
  void AddColumn(Vector v) { columns_.push_back(std::move(v)); }

  // Physical row count (every vector has this many slots in use).
  uint32_t size() const { return size_; }
  void set_size(uint32_t n) {
    size_ = n;
    sel_count_ = n;
    has_sel_ = false;
  }

  // Live rows.
  Rows rows() const { return {has_sel_ ? sel_.data() : nullptr, has_sel_ ? sel_count_ : size_}; }
  uint32_t count() const { return has_sel_ ? sel_count_ : size_; }

  // Installs a selection (copied from `sel`, count rows).
  void SetSelection(const uint32_t* sel, uint32_t count);
  SelectionVector& selection() { return sel_; }
  void SetSelectionCount(uint32_t count) {
    has_sel_ = true;
    sel_count_ = count;
  }
  void ClearSelection() { has_sel_ = false; }

 private:
  std::vector<Vector> columns_;
  uint32_t size_ = 0;
  bool has_sel_ = false;
  uint32_t sel_count_ = 0;
  SelectionVector sel_;
};

// Row i of an owned vector := v (a value of the vector's type, or NULL).
void SetVectorValue(Vector& vec, uint32_t i, const Value& v);

// A chunk of `rows` (each value of the type in `types` at its position), for
// the few rows a key lookup or an index probe found.
DataChunk ChunkOfRows(const std::vector<Type>& types, const std::vector<Row>& rows);

}  // namespace forktail
