# Finds every external dependency the normal way (find_package / pkg-config)
# and exposes each as an imported target. Installed by scripts/install-deps.sh.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

pkg_check_modules(URING REQUIRED IMPORTED_TARGET liburing)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(RocksDB CONFIG REQUIRED)
find_package(fmt REQUIRED)
find_package(GTest REQUIRED)
find_package(benchmark REQUIRED)
find_package(CLI11 CONFIG REQUIRED)

# libnuma is optional at build time and at run time: without it (or on a
# machine without NUMA) workers fall back to plain sched_setaffinity pinning.
pkg_check_modules(NUMA IMPORTED_TARGET numa)
add_library(forktail_numa INTERFACE)
if(NUMA_FOUND)
  target_link_libraries(forktail_numa INTERFACE PkgConfig::NUMA)
  target_compile_definitions(forktail_numa INTERFACE FORKTAIL_HAVE_NUMA=1)
else()
  message(STATUS "libnuma not found: NUMA-aware placement disabled")
endif()

# The allocator (storage/allocator.h says why): jemalloc, unless a sanitizer
# build (the sanitizers bring their own malloc) or FORKTAIL_ALLOCATOR=glibc.
set(FORKTAIL_ALLOCATOR "jemalloc" CACHE STRING "malloc of the binaries: jemalloc | glibc")
add_library(forktail_allocator INTERFACE)
if(FORKTAIL_ALLOCATOR STREQUAL "jemalloc" AND FORKTAIL_SANITIZE STREQUAL "" AND NOT FORKTAIL_FUZZ)
  find_library(JEMALLOC_LIBRARY NAMES jemalloc)
  find_path(JEMALLOC_INCLUDE_DIR NAMES jemalloc/jemalloc.h)
  if(NOT JEMALLOC_LIBRARY OR NOT JEMALLOC_INCLUDE_DIR)
    message(FATAL_ERROR "jemalloc not found: run scripts/install-deps.sh (libjemalloc-dev), "
                        "or configure with -DFORKTAIL_ALLOCATOR=glibc")
  endif()
  target_link_libraries(forktail_allocator INTERFACE ${JEMALLOC_LIBRARY})
  target_include_directories(forktail_allocator INTERFACE ${JEMALLOC_INCLUDE_DIR})
  target_compile_definitions(forktail_allocator INTERFACE FORKTAIL_JEMALLOC=1)
  message(STATUS "allocator: jemalloc (${JEMALLOC_LIBRARY})")
elseif(NOT FORKTAIL_ALLOCATOR MATCHES "^(jemalloc|glibc)$")
  message(FATAL_ERROR "FORKTAIL_ALLOCATOR must be jemalloc or glibc, not ${FORKTAIL_ALLOCATOR}")
else()
  message(STATUS "allocator: glibc malloc")
endif()

add_library(forktail_rocksdb INTERFACE)
target_link_libraries(forktail_rocksdb INTERFACE RocksDB::rocksdb-shared)

# forktail_module(NAME [DEPS targets...]): the library target `forktail_NAME`
# from every .cc file in the module's folder. A module with no sources yet is
# an INTERFACE target so that dependents can name it already.
function(forktail_module name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  # A module may group its files in sub-folders (olap/parser/, olap/plan/, ...): one
  # library either way.
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc
       ${CMAKE_CURRENT_SOURCE_DIR}/*/*.cc)
  if(sources)
    add_library(forktail_${name} STATIC ${sources})
    target_link_libraries(forktail_${name} PUBLIC ${ARG_DEPS})
  else()
    add_library(forktail_${name} INTERFACE)
    target_link_libraries(forktail_${name} INTERFACE ${ARG_DEPS})
  endif()
endfunction()
