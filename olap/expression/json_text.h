// JSON text of SQL values, as PostgreSQL's to_json and to_jsonb write them:
// numbers and booleans as JSON literals (NaN and the infinities as strings),
// dates and timestamps as ISO 8601 strings, arrays as JSON arrays of their
// elements, json/jsonb as themselves, everything else as a JSON string of its
// text. Shared by functions_jsonb.cc and functions_json.cc.
#pragma once

#include <cstdint>
#include <string>

#include "olap/common/vector.h"
#include "storage/value/timezone.h"

namespace forktail {

// Row i of v (not NULL). jsonb: canonical jsonb text ("[1, 2]"); else json's
// compact form ("[1,2]").
std::string ValueToJson(const Vector& v, uint32_t i, const datetime::TimeZone& zone, bool jsonb);

class FunctionRegistry;
// to_json (jsonb: to_jsonb) of every type ValueToJson writes; other types
// reach the TEXT overload by their cast (functions_json.cc).
void RegisterToJson(FunctionRegistry& r, bool jsonb);

}  // namespace forktail
