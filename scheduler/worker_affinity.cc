#include "scheduler/worker_affinity.h"

#include <sched.h>

#ifdef FORKTAIL_HAVE_NUMA
#include <numa.h>
#endif

namespace forktail {

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

bool PinCurrentThreadToCpu(int cpu) {
#ifdef FORKTAIL_HAVE_NUMA
  if (numa_available() >= 0) {
    struct bitmask* mask = numa_allocate_cpumask();
    numa_bitmask_setbit(mask, static_cast<unsigned>(cpu));
    const bool ok = numa_sched_setaffinity(0, mask) == 0;
    numa_free_cpumask(mask);
    if (ok) numa_set_localalloc();
    return ok;
  }
#endif
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

}  // namespace forktail
