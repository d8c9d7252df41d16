// Date/time kernels: date +/- interval, EXTRACT. Until storage/value/datetime.h
// lands, the civil-calendar conversion lives here (Hinnant's algorithms).
#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "storage/value/datetime.h"

namespace forktail {

void DateAddKernel(const Vector& in, const Interval& iv, Rows rows, Vector* out) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  if (in.type().id == TypeId::kDate && out->type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    int32_t* o = out->mutable_data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::AddMonthsToDate(a[i], iv.months) + iv.days;
    });
    return;
  }
  int64_t* o = out->mutable_data<int64_t>();
  if (in.type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::AddInterval(datetime::DateToTimestamp(a[i]), iv);
    });
  } else {
    const int64_t* a = in.data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::AddInterval(a[i], iv);
    });
  }
}

void ExtractKernel(DateField field, const Vector& in, Rows rows, Vector* out) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  int64_t* o = out->mutable_data<int64_t>();
  if (in.type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::Extract(field, datetime::DateToTimestamp(a[i]));
    });
  } else {
    const int64_t* a = in.data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::Extract(field, a[i]);
    });
  }
}

}  // namespace forktail
