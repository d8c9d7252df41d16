// storage — the public door of the storage module: types and values, errors
// and Status, checksums, the catalog, 2 MiB blocks, tables and indexes.
// Other modules include only this header.
#pragma once

#include "storage/crc32c.h"
#include "storage/error.h"
#include "storage/status.h"
#include "storage/types.h"
#include "storage/value.h"
