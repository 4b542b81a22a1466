// store_bench: which ordered structure backs MemoryStore, measured against a
// native SQLite table holding the same rows.
//
// Data: 1M keys shaped like pack(('kv', 'key%08d')) -- 02 'kv' 00 02
// 'key00001234' 00, 17 bytes -- with 16-32 byte values, inserted in a
// shuffled order (as an application's writes arrive), so no structure gets
// the free locality of a sorted bulk load.
//
// Benchmarks, each as <op>/<impl>:
//   Scan        full forward scan, reading every key and value   (ns/row)
//   Lookup      100k point lookups of present keys, value copied  (ns/lookup)
//   Range100    10k scans of 100 consecutive keys from a random start (ns/row)
//   Insert      1M shuffled inserts into an empty structure      (ns/insert)
// impl: memory (MemoryStore through the OrderedStore interface, as ext/
// calls it), memory_txn (inserts inside begin()/commit(), logging undo
// records, as every SQLite write statement does), std_map, absl_btree (when
// built with Debian's libabsl-dev), native (SQLite :memory:,
// `k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`, prepared statements) and
// native_file (the same table in a file under the temp directory with a
// cache big enough to hold it, i.e. warm). Native lookups and range scans
// run a batch per read transaction, as one SQL statement's would.
//
// After the runs a summary prints ns per row / lookup / insert for each
// impl and its ratio to `native`. Reproduce:
//   cmake --build <build dir> --target store_bench && <build dir>/bench/store_bench
// Smaller or faster: --benchmark_filter=Scan, or TUPLEKV_BENCH_KEYS=100000.
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/memory_store.h"

#ifdef TUPLEKV_BENCH_ABSL  // set by bench/CMakeLists.txt when absl is found
#include <absl/container/btree_map.h>
#endif

namespace tuplekv {
namespace {

constexpr size_t kDefaultKeys = 1000000;
constexpr size_t kLookups = 100000;
constexpr size_t kRanges = 10000;
constexpr size_t kRangeRows = 100;

size_t key_count() {
  static const size_t n = [] {
    const char* env = std::getenv("TUPLEKV_BENCH_KEYS");
    const long long v = env != nullptr ? std::atoll(env) : 0;
    return v > static_cast<long long>(kRangeRows) ? static_cast<size_t>(v) : kDefaultKeys;
  }();
  return n;
}

Bytes make_key(size_t i) {
  char digits[32];  // room for any size_t, though keys stay at 8 digits below 100M
  std::snprintf(digits, sizeof digits, "key%08zu", i);
  Bytes k("\x02kv\x00\x02", 5);
  k += digits;
  k.push_back('\0');
  return k;
}

Bytes make_value(size_t i, std::mt19937_64* rng) {
  Bytes v(16 + i % 17, '\0');
  for (char& c : v) c = static_cast<char>('a' + (*rng)() % 26);
  return v;
}

struct Data {
  std::vector<Bytes> keys;     // key i at index i (sorted)
  std::vector<Bytes> values;
  std::vector<size_t> order;   // insertion order: a shuffle of 0..n-1
  std::vector<size_t> probes;  // lookup and range starts
};

const Data& data() {
  static const Data d = [] {
    Data d;
    const size_t n = key_count();
    std::mt19937_64 rng(20240607);
    d.keys.reserve(n);
    d.values.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      d.keys.push_back(make_key(i));
      d.values.push_back(make_value(i, &rng));
    }
    d.order.resize(n);
    for (size_t i = 0; i < n; ++i) d.order[i] = i;
    std::shuffle(d.order.begin(), d.order.end(), rng);
    for (size_t i = 0; i < std::max(kLookups, kRanges); ++i) d.probes.push_back(rng() % n);
    return d;
  }();
  return d;
}

// What a reader does with a row: look at both lengths and a byte of each,
// so every structure has to bring the row's memory in.
inline void consume(const char* k, size_t kn, const char* v, size_t vn, uint64_t* sum) {
  *sum += kn + vn + static_cast<unsigned char>(k[kn - 1]) +
          (vn != 0 ? static_cast<unsigned char>(v[0]) : 0);
}

void set_counters(benchmark::State& state, size_t ops_per_iteration) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ops_per_iteration));
  state.counters["per_op"] = benchmark::Counter(
      static_cast<double>(ops_per_iteration),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "store_bench: %s failed\n", what);
    std::exit(1);
  }
}

// ---- MemoryStore ----

std::unique_ptr<MemoryStore> build_memory(bool transaction) {
  const Data& d = data();
  auto s = std::make_unique<MemoryStore>();
  if (transaction) check(s->begin().ok(), "begin");
  for (size_t i : d.order) check(s->set(d.keys[i], d.values[i]).ok(), "memory set");
  if (transaction) check(s->commit().ok(), "commit");
  return s;
}

MemoryStore& memory() {
  static std::unique_ptr<MemoryStore> s = build_memory(false);
  return *s;
}

void BM_Scan_memory(benchmark::State& state) {
  MemoryStore& s = memory();
  for (auto _ : state) {
    uint64_t sum = 0;
    auto c = s.scan(KeyRange{}, ScanOptions{});
    check(c.ok(), "scan");
    for (Cursor* cur = c->get(); cur->valid(); cur->next()) {
      const BytesView k = cur->key();
      const BytesView v = cur->value();
      consume(k.data(), k.size(), v.data(), v.size(), &sum);
    }
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, key_count());
}

void BM_Lookup_memory(benchmark::State& state) {
  MemoryStore& s = memory();
  const Data& d = data();
  Bytes value;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t j = 0; j < kLookups; ++j) {
      const Bytes& k = d.keys[d.probes[j]];
      bool found = false;
      check(s.get(k, &value, &found).ok() && found, "memory get");
      consume(k.data(), k.size(), value.data(), value.size(), &sum);
    }
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, kLookups);
}

void BM_Range100_memory(benchmark::State& state) {
  MemoryStore& s = memory();
  const Data& d = data();
  const size_t n = key_count();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t j = 0; j < kRanges; ++j) {
      const size_t start = d.probes[j] % (n - kRangeRows);
      auto c = s.scan(KeyRange{d.keys[start], d.keys[start + kRangeRows]}, ScanOptions{});
      for (Cursor* cur = c->get(); cur->valid(); cur->next()) {
        const BytesView k = cur->key();
        const BytesView v = cur->value();
        consume(k.data(), k.size(), v.data(), v.size(), &sum);
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, kRanges * kRangeRows);
}

void BM_Insert_memory(benchmark::State& state) {
  for (auto _ : state) {
    auto s = build_memory(false);
    benchmark::DoNotOptimize(s->size());
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
  set_counters(state, key_count());
}

void BM_Insert_memory_txn(benchmark::State& state) {
  for (auto _ : state) {
    auto s = build_memory(true);
    benchmark::DoNotOptimize(s->size());
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
  set_counters(state, key_count());
}

// ---- std::map and absl::btree_map ----

template <typename Map>
std::unique_ptr<Map> build_map() {
  const Data& d = data();
  auto m = std::make_unique<Map>();
  for (size_t i : d.order) (*m)[d.keys[i]] = d.values[i];
  return m;
}

template <typename Map>
Map& map_instance() {
  static std::unique_ptr<Map> m = build_map<Map>();
  return *m;
}

template <typename Map>
void BM_Scan_map(benchmark::State& state) {
  Map& m = map_instance<Map>();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const auto& [k, v] : m) consume(k.data(), k.size(), v.data(), v.size(), &sum);
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, key_count());
}

template <typename Map>
void BM_Lookup_map(benchmark::State& state) {
  Map& m = map_instance<Map>();
  const Data& d = data();
  Bytes value;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t j = 0; j < kLookups; ++j) {
      const Bytes& k = d.keys[d.probes[j]];
      auto it = m.find(k);
      check(it != m.end(), "map find");
      value.assign(it->second);
      consume(k.data(), k.size(), value.data(), value.size(), &sum);
    }
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, kLookups);
}

template <typename Map>
void BM_Range100_map(benchmark::State& state) {
  Map& m = map_instance<Map>();
  const Data& d = data();
  const size_t n = key_count();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t j = 0; j < kRanges; ++j) {
      const size_t start = d.probes[j] % (n - kRangeRows);
      const Bytes& end = d.keys[start + kRangeRows];
      for (auto it = m.lower_bound(d.keys[start]); it != m.end() && it->first < end; ++it) {
        consume(it->first.data(), it->first.size(), it->second.data(), it->second.size(), &sum);
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, kRanges * kRangeRows);
}

template <typename Map>
void BM_Insert_map(benchmark::State& state) {
  for (auto _ : state) {
    auto m = build_map<Map>();
    benchmark::DoNotOptimize(m->size());
    state.PauseTiming();
    m.reset();
    state.ResumeTiming();
  }
  set_counters(state, key_count());
}

using StdMap = std::map<Bytes, Bytes>;
#ifdef TUPLEKV_BENCH_ABSL
using AbslMap = absl::btree_map<Bytes, Bytes>;
#endif

// ---- native SQLite ----

class Db {
 public:
  explicit Db(const std::string& path) {
    check(sqlite3_open(path.c_str(), &db_) == SQLITE_OK, "sqlite3_open");
    // A cache that holds the whole table: the file database is measured
    // warm, like the in-memory one, not as a disk benchmark.
    exec("PRAGMA cache_size=-1048576");
    exec("CREATE TABLE n(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
  }
  ~Db() {
    sqlite3_close(db_);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const char* sql) {
    check(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK, sql);
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* st = nullptr;
    check(sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) == SQLITE_OK, sql);
    return st;
  }
  void load() {
    const Data& d = data();
    exec("BEGIN");
    sqlite3_stmt* ins = prepare("INSERT INTO n(k, v) VALUES(?1, ?2)");
    for (size_t i : d.order) {
      sqlite3_bind_blob(ins, 1, d.keys[i].data(), static_cast<int>(d.keys[i].size()), SQLITE_STATIC);
      sqlite3_bind_blob(ins, 2, d.values[i].data(), static_cast<int>(d.values[i].size()),
                        SQLITE_STATIC);
      check(sqlite3_step(ins) == SQLITE_DONE, "insert");
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    exec("COMMIT");
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string temp_db_path() {
  const auto dir = std::filesystem::temp_directory_path();
  return (dir / ("tuplekv_store_bench_" + std::to_string(getpid()) + ".db")).string();
}

void remove_db_files(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

// The file database lives as long as the process and is removed at exit.
struct FileDb {
  std::string path = temp_db_path();
  std::unique_ptr<Db> db;
  FileDb() {
    remove_db_files(path);
    db = std::make_unique<Db>(path);
    db->load();
  }
  ~FileDb() {
    db.reset();
    remove_db_files(path);
  }
};

template <bool kFile>
Db& native() {
  if constexpr (kFile) {
    static FileDb f;
    return *f.db;
  } else {
    static std::unique_ptr<Db> db = [] {
      auto d = std::make_unique<Db>(":memory:");
      d->load();
      return d;
    }();
    return *db;
  }
}

template <bool kFile>
void BM_Scan_native(benchmark::State& state) {
  Db& db = native<kFile>();
  sqlite3_stmt* st = db.prepare("SELECT k, v FROM n");
  for (auto _ : state) {
    uint64_t sum = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char* k = static_cast<const char*>(sqlite3_column_blob(st, 0));
      const size_t kn = static_cast<size_t>(sqlite3_column_bytes(st, 0));
      const char* v = static_cast<const char*>(sqlite3_column_blob(st, 1));
      const size_t vn = static_cast<size_t>(sqlite3_column_bytes(st, 1));
      consume(k, kn, v, vn, &sum);
    }
    sqlite3_reset(st);
    benchmark::DoNotOptimize(sum);
  }
  sqlite3_finalize(st);
  set_counters(state, key_count());
}

template <bool kFile>
void BM_Lookup_native(benchmark::State& state) {
  Db& db = native<kFile>();
  const Data& d = data();
  sqlite3_stmt* st = db.prepare("SELECT v FROM n WHERE k = ?1");
  Bytes value;
  for (auto _ : state) {
    uint64_t sum = 0;
    // One read transaction per batch, as the lookups of one SQL statement
    // share one; otherwise every lookup on the file database would lock and
    // re-validate the file, which is not the cost of the table.
    db.exec("BEGIN");
    for (size_t j = 0; j < kLookups; ++j) {
      const Bytes& k = d.keys[d.probes[j]];
      sqlite3_bind_blob(st, 1, k.data(), static_cast<int>(k.size()), SQLITE_STATIC);
      check(sqlite3_step(st) == SQLITE_ROW, "lookup");
      value.assign(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                   static_cast<size_t>(sqlite3_column_bytes(st, 0)));
      sqlite3_reset(st);
      consume(k.data(), k.size(), value.data(), value.size(), &sum);
    }
    db.exec("COMMIT");
    benchmark::DoNotOptimize(sum);
  }
  sqlite3_finalize(st);
  set_counters(state, kLookups);
}

template <bool kFile>
void BM_Range100_native(benchmark::State& state) {
  Db& db = native<kFile>();
  const Data& d = data();
  const size_t n = key_count();
  sqlite3_stmt* st = db.prepare("SELECT k, v FROM n WHERE k >= ?1 AND k < ?2");
  for (auto _ : state) {
    uint64_t sum = 0;
    db.exec("BEGIN");  // as in BM_Lookup_native
    for (size_t j = 0; j < kRanges; ++j) {
      const size_t start = d.probes[j] % (n - kRangeRows);
      const Bytes& b = d.keys[start];
      const Bytes& e = d.keys[start + kRangeRows];
      sqlite3_bind_blob(st, 1, b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
      sqlite3_bind_blob(st, 2, e.data(), static_cast<int>(e.size()), SQLITE_STATIC);
      while (sqlite3_step(st) == SQLITE_ROW) {
        consume(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                static_cast<size_t>(sqlite3_column_bytes(st, 0)),
                static_cast<const char*>(sqlite3_column_blob(st, 1)),
                static_cast<size_t>(sqlite3_column_bytes(st, 1)), &sum);
      }
      sqlite3_reset(st);
    }
    db.exec("COMMIT");
    benchmark::DoNotOptimize(sum);
  }
  sqlite3_finalize(st);
  set_counters(state, kRanges * kRangeRows);
}

template <bool kFile>
void BM_Insert_native(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<Db> db;
    std::string path = kFile ? temp_db_path() + "-insert" : ":memory:";
    state.PauseTiming();
    if (kFile) remove_db_files(path);
    db = std::make_unique<Db>(path);
    state.ResumeTiming();
    db->load();
    state.PauseTiming();
    db.reset();
    if (kFile) remove_db_files(path);
    state.ResumeTiming();
  }
  set_counters(state, key_count());
}

// One iteration of a million-row operation is already long; more would
// only stretch the run.
#define TUPLEKV_BENCH(fn, name) BENCHMARK(fn)->Name(name)->Unit(benchmark::kMillisecond)
#define TUPLEKV_BENCH_ONCE(fn, name) TUPLEKV_BENCH(fn, name)->Iterations(1)

#ifdef TUPLEKV_BENCH_ABSL
#define TUPLEKV_BENCH_IF_ABSL(x) x
#else
#define TUPLEKV_BENCH_IF_ABSL(x)
#endif

TUPLEKV_BENCH(BM_Scan_memory, "Scan/memory");
TUPLEKV_BENCH(BM_Scan_map<StdMap>, "Scan/std_map");
TUPLEKV_BENCH_IF_ABSL(TUPLEKV_BENCH(BM_Scan_map<AbslMap>, "Scan/absl_btree"));
TUPLEKV_BENCH(BM_Scan_native<false>, "Scan/native");
TUPLEKV_BENCH(BM_Scan_native<true>, "Scan/native_file");
TUPLEKV_BENCH(BM_Lookup_memory, "Lookup/memory");
TUPLEKV_BENCH(BM_Lookup_map<StdMap>, "Lookup/std_map");
TUPLEKV_BENCH_IF_ABSL(TUPLEKV_BENCH(BM_Lookup_map<AbslMap>, "Lookup/absl_btree"));
TUPLEKV_BENCH(BM_Lookup_native<false>, "Lookup/native");
TUPLEKV_BENCH(BM_Lookup_native<true>, "Lookup/native_file");
TUPLEKV_BENCH(BM_Range100_memory, "Range100/memory");
TUPLEKV_BENCH(BM_Range100_map<StdMap>, "Range100/std_map");
TUPLEKV_BENCH_IF_ABSL(TUPLEKV_BENCH(BM_Range100_map<AbslMap>, "Range100/absl_btree"));
TUPLEKV_BENCH(BM_Range100_native<false>, "Range100/native");
TUPLEKV_BENCH(BM_Range100_native<true>, "Range100/native_file");
TUPLEKV_BENCH_ONCE(BM_Insert_memory, "Insert/memory");
TUPLEKV_BENCH_ONCE(BM_Insert_memory_txn, "Insert/memory_txn");
TUPLEKV_BENCH_ONCE(BM_Insert_map<StdMap>, "Insert/std_map");
TUPLEKV_BENCH_IF_ABSL(TUPLEKV_BENCH_ONCE(BM_Insert_map<AbslMap>, "Insert/absl_btree"));
TUPLEKV_BENCH_ONCE(BM_Insert_native<false>, "Insert/native");
TUPLEKV_BENCH_ONCE(BM_Insert_native<true>, "Insert/native_file");

// Prints each benchmark as usual, then a table of ns per operation with the
// ratio to `native` for the same operation, from this one run. With
// --benchmark_repetitions the table takes each benchmark's fastest
// repetition: on a shared machine, interference only ever adds time.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      auto it = run.counters.find("per_op");
      if (it == run.counters.end() || run.error_occurred || run.run_type != Run::RT_Iteration) {
        continue;
      }
      const std::string& name = run.run_name.function_name;  // without /iterations:1 etc.
      const double ns = it->second.value * 1e9;
      auto seen = std::find_if(results_.begin(), results_.end(),
                               [&](const auto& r) { return r.first == name; });
      if (seen == results_.end()) {
        results_.emplace_back(name, ns);
      } else {
        seen->second = std::min(seen->second, ns);
      }
    }
  }

  void print_summary() const {
    std::printf("\n%-22s %12s %12s\n", "benchmark", "ns/op", "vs native");
    bool memory_built = false;
    for (const auto& [name, ns] : results_) {
      const std::string op = name.substr(0, name.find('/'));
      memory_built = memory_built || (op != "Insert" && name == op + "/memory");
      double native_ns = 0;
      for (const auto& [other, other_ns] : results_) {
        if (other == op + "/native") native_ns = other_ns;
      }
      if (native_ns > 0) {
        std::printf("%-22s %12.1f %11.2fx\n", name.c_str(), ns, ns / native_ns);
      } else {
        std::printf("%-22s %12.1f %12s\n", name.c_str(), ns, "-");
      }
    }
    if (!memory_built) return;
    const MemoryStoreStats st = memory().stats();
    const double keys = static_cast<double>(st.keys);
    std::printf("\nMemoryStore at %llu keys: %.1f bytes/pair in nodes for %.1f bytes/pair of "
                "data, %llu leaves, height %llu\n",
                static_cast<unsigned long long>(st.keys),
                static_cast<double>(st.node_bytes + st.blob_bytes) / keys,
                static_cast<double>(st.key_value_bytes) / keys,
                static_cast<unsigned long long>(st.leaves),
                static_cast<unsigned long long>(st.height));
  }

 private:
  std::vector<std::pair<std::string, double>> results_;  // in the order run
};

}  // namespace
}  // namespace tuplekv

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tuplekv::SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_summary();
  benchmark::Shutdown();
  return 0;
}
