// Every module's public door in one translation unit. Two modules that define
// a class of the same name in namespace forktail then fail to compile here,
// instead of silently sharing one definition at link time (an ODR violation
// that once bound the scheduler's stream-block destructor to storage's
// munmapping ~Block).
#include <gtest/gtest.h>

#include "forktail/forktail.h"
#include "olap/olap.h"
#include "recovery/recovery.h"
#include "scheduler/scheduler.h"
#include "snapshot/snapshot.h"
#include "storage/storage.h"

namespace forktail {
namespace {

TEST(ModuleDoors, CompileTogether) { SUCCEED(); }

}  // namespace
}  // namespace forktail
