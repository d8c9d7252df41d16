// psql's "aligned" output format, for `forktail sql` and tests:
//
//    id | name  | amount
//   ----+-------+--------
//     1 | alice |   1.50
//     2 |       |
//   (2 rows)
//
// Column names are centered; numbers are right-aligned, everything else
// left-aligned; NULL prints as an empty cell; a value with a newline
// continues on the next line with '+' at the end of the broken line (as psql).
// The last column is not padded on the right. A statement without result
// columns prints its command tag.
#pragma once

#include <string>

#include "olap/session/statement_result.h"

namespace forktail {

std::string FormatAligned(const StatementResult& result);

}  // namespace forktail
