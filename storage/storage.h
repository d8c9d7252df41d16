// storage — the public door of the storage module: types and values, errors
// and Status, checksums, the catalog, 2 MiB blocks, tables and indexes.
// Other modules include only this header.
#pragma once

#include "storage/allocator.h"
#include "storage/crc32c.h"
#include "storage/error.h"
#include "storage/fork_guard.h"
#include "storage/ids.h"
#include "storage/status.h"
#include "storage/table/block.h"
#include "storage/table/block_directory.h"
#include "storage/table/block_layout.h"
#include "storage/table/catalog.h"
#include "storage/table/cell.h"
#include "storage/table/hash_index.h"
#include "storage/table/schema.h"
#include "storage/table/sequence.h"
#include "storage/table/statistics.h"
#include "storage/table/table.h"
#include "storage/value/datetime.h"
#include "storage/value/decimal.h"
#include "storage/value/types.h"
#include "storage/value/utf8.h"
#include "storage/value/value.h"
