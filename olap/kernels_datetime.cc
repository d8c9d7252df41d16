// Date/time kernels: date +/- interval, EXTRACT. Until storage/datetime.h
// lands, the civil-calendar conversion lives here (Hinnant's algorithms).
#include "olap/kernel_util.h"
#include "olap/kernels.h"

namespace forktail {
namespace {
constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

int64_t AddMonths(int64_t days, int32_t months) {
  if (months == 0) return days;
  int y, m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t total = int64_t{y} * 12 + (m - 1) + months;
  int ny = static_cast<int>(FloorDiv(total, 12));
  int nm = static_cast<int>(total - int64_t{ny} * 12) + 1;
  return DaysFromCivil(ny, nm, std::min(d, DaysInMonth(ny, nm)));
}
}  // namespace

void CivilFromDays(int64_t z, int* y, int* m, int* d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = static_cast<int>(yoe + era * 400 + (*m <= 2));
}

int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void DateAddKernel(const Vector& in, const Interval& iv, Rows rows, Vector* out) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  if (in.type().id == TypeId::kDate && out->type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    int32_t* o = out->mutable_data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = static_cast<int32_t>(AddMonths(a[i], iv.months) + iv.days);
    });
    return;
  }
  int64_t* o = out->mutable_data<int64_t>();
  auto add = [&](int64_t micros) {
    int64_t day = FloorDiv(micros, kMicrosPerDay);
    int64_t tod = micros - day * kMicrosPerDay;
    return (AddMonths(day, iv.months) + iv.days) * kMicrosPerDay + tod + iv.micros;
  };
  if (in.type().id == TypeId::kDate) {
    const int32_t* a = in.data<int32_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = add(a[i] * kMicrosPerDay);
    });
  } else {
    const int64_t* a = in.data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = add(a[i]);
    });
  }
}

void ExtractKernel(DateField field, const Vector& in, Rows rows, Vector* out) {
  UnionNulls(in, nullptr, rows, out);
  const uint64_t* nulls = out->nulls();
  int64_t* o = out->mutable_data<int64_t>();
  bool is_date = in.type().id == TypeId::kDate;
  const int32_t* d32 = is_date ? in.data<int32_t>() : nullptr;
  const int64_t* t64 = is_date ? nullptr : in.data<int64_t>();
  ForEachRow(rows, [&](uint32_t i) {
    if (NullAt(nulls, i)) return;
    int64_t micros = is_date ? d32[i] * kMicrosPerDay : t64[i];
    int64_t day = FloorDiv(micros, kMicrosPerDay);
    int64_t tod = micros - day * kMicrosPerDay;
    int y, m, d;
    CivilFromDays(day, &y, &m, &d);
    switch (field) {
      case DateField::kYear:
        o[i] = y;
        break;
      case DateField::kQuarter:
        o[i] = (m - 1) / 3 + 1;
        break;
      case DateField::kMonth:
        o[i] = m;
        break;
      case DateField::kDay:
        o[i] = d;
        break;
      case DateField::kHour:
        o[i] = tod / 3600000000LL;
        break;
      case DateField::kMinute:
        o[i] = tod / 60000000LL % 60;
        break;
      case DateField::kSecond:
        o[i] = tod / 1000000LL % 60;
        break;
      case DateField::kDow:
        o[i] = FloorDiv(day + 4, 7) * -7 + day + 4;
        break;  // 0 = Sunday
      case DateField::kDoy:
        o[i] = day - DaysFromCivil(y, 1, 1) + 1;
        break;
    }
  });
}

}  // namespace forktail
