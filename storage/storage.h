// storage — the public door of the storage module: types and values, errors
// and Status, checksums, the catalog, 2 MiB blocks, tables and indexes.
// Other modules include only this header.
#pragma once

#include "storage/block.h"
#include "storage/block_directory.h"
#include "storage/block_layout.h"
#include "storage/catalog.h"
#include "storage/cell.h"
#include "storage/crc32c.h"
#include "storage/datetime.h"
#include "storage/decimal.h"
#include "storage/error.h"
#include "storage/hash_index.h"
#include "storage/ids.h"
#include "storage/schema.h"
#include "storage/statistics.h"
#include "storage/status.h"
#include "storage/table.h"
#include "storage/types.h"
#include "storage/utf8.h"
#include "storage/value.h"
