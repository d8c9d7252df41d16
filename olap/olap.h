// olap — the public door of the analytical module: vectors and chunks, bound
// expressions and their vectorized executor, hash join build/probe with chunk
// compaction, LIP Bloom and exact filters, parallel aggregation, sort/top-k.
// Other modules include only this header.
#pragma once

#include "olap/data_chunk.h"
#include "olap/expression.h"
#include "olap/expression_executor.h"
#include "olap/vector.h"
