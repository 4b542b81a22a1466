// FUZZ_CHECK: the fuzz targets' assertion. libFuzzer reports an abort as a
// crash and keeps the input, in release builds too (assert() would vanish
// under NDEBUG).
#ifndef TUPLEKV_TESTS_FUZZ_FUZZ_CHECK_H_
#define TUPLEKV_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                            \
    }                                                                          \
  } while (0)

#endif  // TUPLEKV_TESTS_FUZZ_FUZZ_CHECK_H_
