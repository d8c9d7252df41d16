// Pinning of worker threads to CPUs. Workers are stateless, so the pinning only
// keeps a worker's caches warm and its memory local: worker k runs on the k-th
// CPU (modulo) of those this process may use. With libnuma (FORKTAIL_HAVE_NUMA
// and numa_available() >= 0) the worker also prefers its node's memory.
// Failure to pin is reported by the return value and is not an error.
#pragma once

#include <vector>

namespace forktail {

// CPUs in this process's affinity mask, ascending (never empty).
std::vector<int> AllowedCpus();
// Pins the calling thread to `cpu`; false if the OS refused.
bool PinCurrentThreadToCpu(int cpu);

}  // namespace forktail
