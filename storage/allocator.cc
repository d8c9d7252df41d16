#include "storage/allocator.h"

#if FORKTAIL_JEMALLOC
#include <jemalloc/jemalloc.h>

#define FORKTAIL_STRINGIFY_(x) #x
#define FORKTAIL_STRINGIFY(x) FORKTAIL_STRINGIFY_(x)
#else
#include <malloc.h>
#endif

namespace forktail {

std::string AllocatorName() {
#if FORKTAIL_JEMALLOC
  const char* version = nullptr;
  size_t size = sizeof(version);
  if (mallctl("version", &version, &size, nullptr, 0) == 0 && version != nullptr) {
    return std::string("jemalloc ") + version;
  }
  return "jemalloc";
#else
  return "glibc malloc";
#endif
}

void ReleaseFreeAllocatorMemory() {
#if FORKTAIL_JEMALLOC
  // MALLCTL_ARENAS_ALL: every arena's unused dirty pages back to the kernel.
  mallctl("arena." FORKTAIL_STRINGIFY(MALLCTL_ARENAS_ALL) ".purge", nullptr, nullptr, nullptr, 0);
#else
  ::malloc_trim(0);
#endif
}

}  // namespace forktail
