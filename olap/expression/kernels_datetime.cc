// Date/time kernels: date/timestamp[tz] +/- interval, EXTRACT (calendar
// arithmetic is storage/value/datetime.h's, zones timezone.h's).
#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "storage/value/datetime.h"

namespace forktail {

void DateAddKernel(const Vector& in, const Interval& iv, Rows rows, Vector* out,
                   const datetime::TimeZone* zone) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  if (in.type().id == TypeId::kTimestampTz) {
    const datetime::TimeZone& z = zone != nullptr ? *zone : *datetime::TimeZone::Utc();
    const int64_t* a = in.data<int64_t>();
    int64_t* o = out->mutable_data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::AddIntervalTz(a[i], iv, z);
    });
    return;
  }
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

void ExtractKernel(DateField field, const Vector& in, Rows rows, Vector* out,
                   const datetime::TimeZone* zone) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  int64_t* o = out->mutable_data<int64_t>();
  // A DECIMAL(18,6) result (SECOND, EPOCH of a timestamp) is the field in
  // microseconds.
  const bool micros = out->type().id == TypeId::kDecimal;
  if (in.type().id == TypeId::kTimestampTz) {
    // Fields of the wall clock in the session's zone; EPOCH of the instant.
    const datetime::TimeZone& z = zone != nullptr ? *zone : *datetime::TimeZone::Utc();
    const int64_t* a = in.data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (NullAt(nulls, i)) return;
      const int64_t ts = field == DateField::kEpoch ? a[i] : z.ToLocal(a[i]);
      o[i] = micros ? datetime::ExtractMicros(field, ts) : datetime::Extract(field, ts);
    });
    return;
  }
  if (in.type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::Extract(field, datetime::DateToTimestamp(a[i]));
    });
  } else {
    const int64_t* a = in.data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (NullAt(nulls, i)) return;
      o[i] = micros ? datetime::ExtractMicros(field, a[i]) : datetime::Extract(field, a[i]);
    });
  }
}

}  // namespace forktail
