// tuple_bench: the cost of the tuple codec on
//   typical   the key ('users', 123456, 'region'), 19 bytes packed
//   mixed     1,000 tuples from the shared golden vectors (every element
//             type, nesting, big integers, long strings), the first 1,000
//             that pack, in file order
//
// Benchmarks, each as <op>/<data>; every one reports ns per tuple (per_op)
// and bytes/s of packed tuple bytes:
//   Pack      pack() into a reused buffer
//   Unpack    unpack() into a reused Tuple (allocates only for elements
//             that do not fit small-string storage, nested tuples, big ints)
//   Read      TupleReader over the packed bytes: the zero-allocation walk
//             the planner and key filters use
//   Compare   compare_bytes() of two packed tuples (bytes/s counts both
//             inputs), the order every store keeps
//   CompareValues  compare() of the same tuples unpacked
// and floors, the least any codec could cost on the same bytes:
//   Pack/*_memcpy_floor     copying the packed bytes into the buffer
//   Compare/*_memcmp_floor  memcmp() over the shorter length
//
// The vectors file is required: without it the program stops with an
// error rather than measuring less. Reproduce:
//   cmake --build <build dir> --target tuple_bench && <build dir>/bench/tuple_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"
#include "core/tuple.h"

namespace tuplekv {
namespace {

constexpr size_t kMixedCount = 1000;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "tuple_bench: %s\n", what.c_str());
  std::exit(1);
}

struct Sample {
  std::vector<Tuple> tuples;
  std::vector<Bytes> packed;  // packed[i] == pack(tuples[i])
  size_t packed_bytes = 0;
};

void add(Sample* s, Tuple t) {
  Bytes b;
  if (!pack(t, &b).ok()) return;  // e.g. an incomplete versionstamp
  s->packed_bytes += b.size();
  s->packed.push_back(std::move(b));
  s->tuples.push_back(std::move(t));
}

Sample typical_sample() {
  Sample s;
  // Two keys that differ only in the middle element, so a comparison reads
  // past the shared prefix.
  add(&s, {TupleValue::string("users"), TupleValue::int64(123456), TupleValue::string("region")});
  add(&s, {TupleValue::string("users"), TupleValue::int64(123457), TupleValue::string("region")});
  if (s.packed.size() != 2) die("could not pack the typical key");
  return s;
}

// The value of `"field":"..."` in a JSON line (the vectors' hex fields hold
// no escapes), or empty.
std::string_view json_string_field(std::string_view line, std::string_view field) {
  std::string needle = "\"";  // appended, not "..." + string: GCC 12 warns falsely on that
  needle.append(field).append("\":\"");
  const size_t at = line.find(needle);
  if (at == std::string_view::npos) return {};
  const size_t start = at + needle.size();
  const size_t end = line.find('"', start);
  if (end == std::string_view::npos) return {};
  return line.substr(start, end - start);
}

Sample mixed_sample() {
  const std::string path = std::string(TUPLEKV_SHARED_DIR) + "/tuple-vectors.jsonl";
  std::ifstream in(path);
  if (!in) die("cannot open " + path + " (the shared golden vectors; set TUPLEKV_SHARED_DIR)");
  Sample s;
  std::string line;
  size_t lineno = 0;
  while (s.tuples.size() < kMixedCount && std::getline(in, line)) {
    ++lineno;
    for (const char* field : {"hex", "hex_a", "hex_b"}) {
      const std::string_view hex = json_string_field(line, field);
      if (hex.empty()) continue;
      Bytes packed;
      Tuple t;
      if (!from_hex(hex, &packed)) die(path + ":" + std::to_string(lineno) + ": bad hex");
      const Status st = unpack(packed, &t);
      if (!st.ok()) die(path + ":" + std::to_string(lineno) + ": " + st.message());
      if (s.tuples.size() < kMixedCount) add(&s, std::move(t));
    }
  }
  if (s.tuples.size() < kMixedCount) {
    die(path + " holds only " + std::to_string(s.tuples.size()) + " packable tuples, want " +
        std::to_string(kMixedCount));
  }
  return s;
}

const Sample& typical() {
  static const Sample s = typical_sample();
  return s;
}
const Sample& mixed() {
  static const Sample s = mixed_sample();
  return s;
}

// ns per tuple and bytes/s, whatever the number of tuples per iteration.
void set_counters(benchmark::State& state, size_t tuples, size_t bytes) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * tuples));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["per_op"] = benchmark::Counter(
      static_cast<double>(tuples),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void check(const Status& s, const char* what) {
  if (!s.ok()) die(std::string(what) + ": " + s.message());
}

// The typical case packs one tuple per iteration; the mixed case all 1,000.
template <const Sample& (*kData)()>
void BM_Pack(benchmark::State& state) {
  const Sample& d = kData();
  const size_t n = kData == &typical ? 1 : d.tuples.size();
  Bytes buf;
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) {
      buf.clear();
      check(pack(d.tuples[i], &buf), "pack");
      benchmark::DoNotOptimize(buf.data());
    }
    benchmark::ClobberMemory();
  }
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += d.packed[i].size();
  set_counters(state, n, bytes);
}

template <const Sample& (*kData)()>
void BM_PackFloor(benchmark::State& state) {
  const Sample& d = kData();
  const size_t n = kData == &typical ? 1 : d.packed.size();
  Bytes buf;
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) {
      buf.assign(d.packed[i]);
      benchmark::DoNotOptimize(buf.data());
    }
    benchmark::ClobberMemory();
  }
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += d.packed[i].size();
  set_counters(state, n, bytes);
}

template <const Sample& (*kData)()>
void BM_Unpack(benchmark::State& state) {
  const Sample& d = kData();
  const size_t n = kData == &typical ? 1 : d.packed.size();
  Tuple t;
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) {
      check(unpack(d.packed[i], &t), "unpack");
      benchmark::DoNotOptimize(t.data());
    }
  }
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += d.packed[i].size();
  set_counters(state, n, bytes);
}

template <const Sample& (*kData)()>
void BM_Read(benchmark::State& state) {
  const Sample& d = kData();
  const size_t n = kData == &typical ? 1 : d.packed.size();
  for (auto _ : state) {
    size_t elements = 0;
    for (size_t i = 0; i < n; ++i) {
      TupleReader r(d.packed[i]);
      while (r.next()) {
        benchmark::DoNotOptimize(r.raw().data());
        ++elements;
      }
      if (!r.at_end()) die("TupleReader: " + r.status().message());
    }
    benchmark::DoNotOptimize(elements);
  }
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += d.packed[i].size();
  set_counters(state, n, bytes);
}

// Compares tuple i with tuple i + 1 (the typical sample's two keys; the
// neighbours in the vectors file, which often share leading elements).
template <const Sample& (*kData)(), int kHow>  // 0 compare_bytes, 1 memcmp floor, 2 values
void BM_Compare(benchmark::State& state) {
  const Sample& d = kData();
  const size_t n = kData == &typical ? 1 : d.packed.size() - 1;
  for (auto _ : state) {
    int sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const Bytes& a = d.packed[i];
      const Bytes& b = d.packed[i + 1];
      if constexpr (kHow == 0) {
        sum += compare_bytes(a, b) < 0;
      } else if constexpr (kHow == 1) {
        sum += std::memcmp(a.data(), b.data(), std::min(a.size(), b.size())) < 0;
      } else {
        sum += compare(d.tuples[i], d.tuples[i + 1]) < 0;
      }
      benchmark::DoNotOptimize(sum);
    }
  }
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += d.packed[i].size() + d.packed[i + 1].size();
  set_counters(state, n, bytes);
}

BENCHMARK(BM_Pack<typical>)->Name("Pack/typical");
BENCHMARK(BM_PackFloor<typical>)->Name("Pack/typical_memcpy_floor");
BENCHMARK(BM_Pack<mixed>)->Name("Pack/mixed");
BENCHMARK(BM_PackFloor<mixed>)->Name("Pack/mixed_memcpy_floor");
BENCHMARK(BM_Unpack<typical>)->Name("Unpack/typical");
BENCHMARK(BM_Unpack<mixed>)->Name("Unpack/mixed");
BENCHMARK(BM_Read<typical>)->Name("Read/typical");
BENCHMARK(BM_Read<mixed>)->Name("Read/mixed");
BENCHMARK(BM_Compare<typical, 0>)->Name("Compare/typical");
BENCHMARK(BM_Compare<typical, 1>)->Name("Compare/typical_memcmp_floor");
BENCHMARK(BM_Compare<typical, 2>)->Name("CompareValues/typical");
BENCHMARK(BM_Compare<mixed, 0>)->Name("Compare/mixed");
BENCHMARK(BM_Compare<mixed, 1>)->Name("Compare/mixed_memcmp_floor");
BENCHMARK(BM_Compare<mixed, 2>)->Name("CompareValues/mixed");

}  // namespace
}  // namespace tuplekv

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Load both samples first, so a missing vectors file stops the program
  // whatever --benchmark_filter selects.
  const tuplekv::Sample& t = tuplekv::typical();
  const tuplekv::Sample& m = tuplekv::mixed();
  std::printf("typical: %zu bytes packed; mixed: %zu tuples, %zu bytes packed (%.1f per tuple)\n",
              t.packed[0].size(), m.tuples.size(), m.packed_bytes,
              static_cast<double>(m.packed_bytes) / static_cast<double>(m.tuples.size()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
