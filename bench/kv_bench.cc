// kv_bench: tuplekv_kv against a native SQLite table holding the same rows,
// all driven through SQL (prepared statements, sqlite3_step) in one run.
//
//   native  CREATE TABLE n(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID
//   sqlite  CREATE VIRTUAL TABLE s USING tuplekv_kv            (shadow table s_kv)
//   memory  CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory)
//
// All three live in one :memory: connection. Data: 1M keys pack((g, j)),
// g < 10000, j < 100, with 16-32 random value bytes, inserted in a shuffled
// order. Benchmarks, each <op>/<impl>:
//   BulkInsert  1M INSERTs in one transaction into an empty table  (ns/row)
//   Lookup      100k `key = ?` lookups of present keys, value read (ns/lookup)
//   PrefixScan  10k scans of one g (100 rows each): tuplekv_kv with
//               `prefix = pack((g,))`, native with k >= p AND k < strinc(p)
//               (ns/row)
//   FullScan    one scan of every row, key and value read          (ns/row)
// Each tuplekv benchmark has a `vs_native` counter: its time divided by the
// time of the same operation on the native table, run interleaved with it
// (after every iteration, clock paused), so load that comes and goes on a
// shared machine hits both sides alike. A summary table at the end repeats
// ns/op (fastest repetition) and the ratios (median over repetitions).
//
// Reproduce:
//   cmake --build <build dir> --target kv_bench && <build dir>/bench/kv_bench
// Smaller: TUPLEKV_BENCH_KEYS=100000; one operation: --benchmark_filter=Lookup
// Instructions of one side alone (no interleaved native run):
//   TUPLEKV_BENCH_KEYS=100000 TUPLEKV_BENCH_UNPAIRED=1 valgrind --tool=callgrind
//     --toggle-collect='*scan_all*' <build dir>/bench/kv_bench --benchmark_filter='^PrefixScan/sqlite$'
// (point lookups: --toggle-collect='*lookup_one*' --benchmark_filter='^Lookup/sqlite$').
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "core/tuple.h"
#include "ext/tuplekv.h"

namespace tuplekv {
namespace {

constexpr size_t kDefaultKeys = 1000000;
constexpr size_t kGroupRows = 100;
constexpr size_t kLookups = 100000;
constexpr size_t kScans = 10000;

size_t key_count() {
  static const size_t n = [] {
    const char* env = std::getenv("TUPLEKV_BENCH_KEYS");
    const long v = env != nullptr ? std::atol(env) : 0;
    return v >= static_cast<long>(kGroupRows) ? static_cast<size_t>(v) / kGroupRows * kGroupRows
                                              : kDefaultKeys;
  }();
  return n;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "kv_bench: %s failed\n", what);
    std::exit(1);
  }
}

Bytes packed_ints(std::initializer_list<int64_t> v) {
  Tuple t;
  for (int64_t x : v) t.push_back(TupleValue::int64(x));
  Result<Bytes> b = packed(t);
  check(b.ok(), "pack");
  return std::move(b).value();
}

struct Data {
  std::vector<Bytes> keys;  // sorted: key i is pack((i / 100, i % 100))
  std::vector<Bytes> values;
  std::vector<size_t> order;          // insertion order
  std::vector<size_t> lookups;        // key indexes
  std::vector<Bytes> scan_prefixes;   // pack((g,))
  std::vector<Bytes> scan_ends;       // strinc(pack((g,)))
};

const Data& data() {
  static const Data d = [] {
    Data d;
    const size_t n = key_count();
    std::mt19937_64 rng(20240611);
    for (size_t i = 0; i < n; ++i) {
      d.keys.push_back(packed_ints({static_cast<int64_t>(i / kGroupRows),
                                    static_cast<int64_t>(i % kGroupRows)}));
      Bytes v(16 + i % 17, '\0');
      for (char& c : v) c = static_cast<char>(rng());
      d.values.push_back(std::move(v));
    }
    d.order.resize(n);
    for (size_t i = 0; i < n; ++i) d.order[i] = i;
    std::shuffle(d.order.begin(), d.order.end(), rng);
    for (size_t i = 0; i < kLookups; ++i) d.lookups.push_back(rng() % n);
    for (size_t i = 0; i < kScans; ++i) {
      const Bytes p = packed_ints({static_cast<int64_t>(rng() % (n / kGroupRows))});
      d.scan_prefixes.push_back(p);
      d.scan_ends.push_back(*strinc(p));
    }
    return d;
  }();
  return d;
}

inline void consume(const void* k, int kn, const void* v, int vn, uint64_t* sum) {
  *sum += static_cast<uint64_t>(kn + vn) + static_cast<const unsigned char*>(k)[kn - 1] +
          (vn != 0 ? static_cast<const unsigned char*>(v)[0] : 0);
}

// ---------------------------------------------------------------------------
// The connection and its three tables

enum class Impl { kNative, kSqlite, kMemory };

const char* impl_name(Impl i) {
  return i == Impl::kNative ? "native" : i == Impl::kSqlite ? "sqlite" : "memory";
}

struct Names {
  const char* table;
  const char* key;
  const char* value;
};

Names names(Impl i) {
  switch (i) {
    case Impl::kNative:
      return {"n", "k", "v"};
    case Impl::kSqlite:
      return {"s", "key", "value"};
    default:
      return {"m", "key", "value"};
  }
}

class Conn {
 public:
  Conn() {
    check(sqlite3_open(":memory:", &db_) == SQLITE_OK, "open");
    check(tuplekv_register(db_) == SQLITE_OK, "tuplekv_register");
  }
  ~Conn() { sqlite3_close_v2(db_); }

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::fprintf(stderr, "kv_bench: %s: %s\n", sql.c_str(), err != nullptr ? err : "?");
      std::exit(1);
    }
  }
  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    check(sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) ==
              SQLITE_OK,
          sql.c_str());
    return st;
  }

  void create(Impl i, const std::string& table) {
    switch (i) {
      case Impl::kNative:
        exec("CREATE TABLE " + table + "(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
        break;
      case Impl::kSqlite:
        exec("CREATE VIRTUAL TABLE " + table + " USING tuplekv_kv");
        break;
      case Impl::kMemory:
        exec("CREATE VIRTUAL TABLE " + table + " USING tuplekv_kv(store=memory)");
        break;
    }
  }

  // 1M INSERTs in one transaction, in the shuffled order.
  void load(Impl i, const std::string& table) {
    const Data& d = data();
    exec("BEGIN");
    sqlite3_stmt* ins = prepare("INSERT INTO " + table + " VALUES (?1, ?2)");
    for (size_t k : d.order) {
      sqlite3_bind_blob(ins, 1, d.keys[k].data(), static_cast<int>(d.keys[k].size()),
                        SQLITE_STATIC);
      sqlite3_bind_blob(ins, 2, d.values[k].data(), static_cast<int>(d.values[k].size()),
                        SQLITE_STATIC);
      check(sqlite3_step(ins) == SQLITE_DONE, impl_name(i));
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    exec("COMMIT");
  }

 private:
  sqlite3* db_ = nullptr;
};

Conn& conn() {
  static Conn* c = new Conn();  // lives for the process, like the tables
  return *c;
}

// The loaded tables, built on first use.
void ensure_loaded(Impl i) {
  static bool loaded[3] = {false, false, false};
  bool& done = loaded[static_cast<int>(i)];
  if (done) return;
  conn().create(i, names(i).table);
  conn().load(i, names(i).table);
  done = true;
}

// ---------------------------------------------------------------------------
// The operations, one run each; every function returns the nanoseconds the
// measured part took.

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// The measured loops are functions of their own, so a profiler can be
// pointed at them alone (valgrind --tool=callgrind --toggle-collect='*scan_all*',
// or '*lookup_one*').
__attribute__((noinline)) size_t scan_all(sqlite3_stmt* st, uint64_t* sum) {
  size_t rows = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    consume(sqlite3_column_blob(st, 0), sqlite3_column_bytes(st, 0), sqlite3_column_blob(st, 1),
            sqlite3_column_bytes(st, 1), sum);
    ++rows;
  }
  sqlite3_reset(st);
  return rows;
}

__attribute__((noinline)) void lookup_one(sqlite3_stmt* st, const Bytes& k, Bytes* value,
                                          uint64_t* sum) {
  sqlite3_bind_blob(st, 1, k.data(), static_cast<int>(k.size()), SQLITE_STATIC);
  check(sqlite3_step(st) == SQLITE_ROW, "lookup");
  value->assign(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                static_cast<size_t>(sqlite3_column_bytes(st, 0)));
  sqlite3_reset(st);
  consume(k.data(), static_cast<int>(k.size()), value->data(), static_cast<int>(value->size()), sum);
}

// One operation (BulkInsert, Lookup, PrefixScan, FullScan) on one table:
// prepared once, run as often as asked.
class Op {
 public:
  virtual ~Op() = default;
  virtual double run() = 0;  // ns
  virtual size_t ops() const = 0;
};

class BulkInsertOp final : public Op {
 public:
  explicit BulkInsertOp(Impl impl) : impl_(impl) {}
  double run() override {
    static int round = 0;
    const std::string table = std::string("bulk_") + impl_name(impl_) + std::to_string(round++);
    conn().create(impl_, table);
    const auto t0 = std::chrono::steady_clock::now();
    conn().load(impl_, table);
    const double ns = since(t0);
    conn().exec("DROP TABLE " + table);
    return ns;
  }
  size_t ops() const override { return key_count(); }

 private:
  Impl impl_;
};

class LookupOp final : public Op {
 public:
  explicit LookupOp(Impl impl) {
    ensure_loaded(impl);
    const Names nm = names(impl);
    st_ = conn().prepare(std::string("SELECT ") + nm.value + " FROM " + nm.table + " WHERE " +
                         nm.key + " = ?1");
  }
  ~LookupOp() override { sqlite3_finalize(st_); }
  double run() override {
    const Data& d = data();
    uint64_t sum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    // One read transaction per batch for both (as one statement's lookups
    // would share one).
    conn().exec("BEGIN");
    for (size_t j = 0; j < kLookups; ++j) lookup_one(st_, d.keys[d.lookups[j]], &value_, &sum);
    conn().exec("COMMIT");
    const double ns = since(t0);
    benchmark::DoNotOptimize(sum);
    return ns;
  }
  size_t ops() const override { return kLookups; }

 private:
  sqlite3_stmt* st_ = nullptr;
  Bytes value_;
};

class PrefixScanOp final : public Op {
 public:
  explicit PrefixScanOp(Impl impl) : native_(impl == Impl::kNative) {
    ensure_loaded(impl);
    st_ = native_ ? conn().prepare("SELECT k, v FROM n WHERE k >= ?1 AND k < ?2")
                  : conn().prepare(std::string("SELECT key, value FROM ") + names(impl).table +
                                   " WHERE prefix = ?1");
  }
  ~PrefixScanOp() override { sqlite3_finalize(st_); }
  double run() override {
    const Data& d = data();
    uint64_t sum = 0;
    size_t rows = 0;
    const auto t0 = std::chrono::steady_clock::now();
    conn().exec("BEGIN");
    for (size_t j = 0; j < kScans; ++j) {
      const Bytes& p = d.scan_prefixes[j];
      sqlite3_bind_blob(st_, 1, p.data(), static_cast<int>(p.size()), SQLITE_STATIC);
      if (native_) {
        const Bytes& e = d.scan_ends[j];
        sqlite3_bind_blob(st_, 2, e.data(), static_cast<int>(e.size()), SQLITE_STATIC);
      }
      rows += scan_all(st_, &sum);
    }
    conn().exec("COMMIT");
    const double ns = since(t0);
    check(rows == kScans * kGroupRows, "prefix scans read 100 rows each");
    benchmark::DoNotOptimize(sum);
    return ns;
  }
  size_t ops() const override { return kScans * kGroupRows; }

 private:
  bool native_;
  sqlite3_stmt* st_ = nullptr;
};

class FullScanOp final : public Op {
 public:
  explicit FullScanOp(Impl impl) {
    ensure_loaded(impl);
    const Names nm = names(impl);
    st_ = conn().prepare(std::string("SELECT ") + nm.key + ", " + nm.value + " FROM " + nm.table);
  }
  ~FullScanOp() override { sqlite3_finalize(st_); }
  double run() override {
    uint64_t sum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const size_t rows = scan_all(st_, &sum);
    const double ns = since(t0);
    check(rows == key_count(), "full scan read every row");
    benchmark::DoNotOptimize(sum);
    return ns;
  }
  size_t ops() const override { return key_count(); }

 private:
  sqlite3_stmt* st_ = nullptr;
};

// TUPLEKV_BENCH_UNPAIRED=1 leaves out the interleaved native runs (and the
// vs_native counter), so that an instruction count of one benchmark under
// callgrind counts that implementation alone.
bool paired() {
  static const bool p = [] {
    const char* env = std::getenv("TUPLEKV_BENCH_UNPAIRED");
    return env == nullptr || std::string(env) != "1";
  }();
  return p;
}

// A tuplekv benchmark times its own iterations and, after each one (with
// the framework's clock paused), one run of the same operation on the
// native table: `vs_native` is the ratio of the two sums. Interleaving keeps
// the ratio honest on a shared machine, where load comes and goes between
// one benchmark and the next.
template <typename OpType, Impl kImpl>
void BM_Op(benchmark::State& state) {
  OpType op(kImpl);
  std::unique_ptr<OpType> native;
  if (kImpl != Impl::kNative && paired()) native = std::make_unique<OpType>(Impl::kNative);
  double own_ns = 0;
  double native_ns = 0;
  for (auto _ : state) {
    own_ns += op.run();
    if (native != nullptr) {
      state.PauseTiming();
      native_ns += native->run();
      state.ResumeTiming();
    }
  }
  const double per_iteration = static_cast<double>(op.ops());
  state.SetItemsProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * per_iteration));
  state.counters["per_op"] = benchmark::Counter(
      per_iteration, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (native != nullptr && native_ns > 0) state.counters["vs_native"] = own_ns / native_ns;
}

#define TUPLEKV_KV_BENCH(OpType, op)                                                          \
  BENCHMARK(BM_Op<OpType, Impl::kNative>)->Name(op "/native")->Unit(benchmark::kMillisecond);   \
  BENCHMARK(BM_Op<OpType, Impl::kSqlite>)->Name(op "/sqlite")->Unit(benchmark::kMillisecond);   \
  BENCHMARK(BM_Op<OpType, Impl::kMemory>)->Name(op "/memory")->Unit(benchmark::kMillisecond)

TUPLEKV_KV_BENCH(LookupOp, "Lookup");
TUPLEKV_KV_BENCH(PrefixScanOp, "PrefixScan");
TUPLEKV_KV_BENCH(FullScanOp, "FullScan");
// A million inserts per iteration: a few iterations are plenty.
BENCHMARK(BM_Op<BulkInsertOp, Impl::kNative>)->Name("BulkInsert/native")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Op<BulkInsertOp, Impl::kSqlite>)->Name("BulkInsert/sqlite")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Op<BulkInsertOp, Impl::kMemory>)->Name("BulkInsert/memory")->Unit(benchmark::kMillisecond)->Iterations(3);

// Prints the usual lines, then one table: ns per operation (fastest
// repetition) and both ratios to native, all from this run.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      auto it = run.counters.find("per_op");
      if (it == run.counters.end() || run.error_occurred || run.run_type != Run::RT_Iteration) {
        continue;
      }
      Result& r = result(run.run_name.function_name);
      r.ns = r.ns == 0 ? it->second.value * 1e9 : std::min(r.ns, it->second.value * 1e9);
      auto ratio = run.counters.find("vs_native");
      if (ratio != run.counters.end()) r.ratios.push_back(ratio->second.value);
    }
  }

  // Two ratios: "separate" compares the fastest repetitions of the two
  // benchmarks (each warm in its own loop); "paired" is the vs_native
  // counter (each iteration followed by a native run, so both sides meet
  // the same load and a cache the other just used).
  void print_summary() {
    std::printf("\n%-22s %12s %10s %10s\n", "benchmark", "ns/op", "separate", "paired");
    for (Result& r : results_) {
      const std::string op = r.name.substr(0, r.name.find('/'));
      double native = 0;
      for (const Result& o : results_) {
        if (o.name == op + "/native") native = o.ns;
      }
      std::printf("%-22s %12.1f", r.name.c_str(), r.ns);
      if (native > 0 && r.name != op + "/native") {
        std::printf(" %9.2fx", r.ns / native);
      } else {
        std::printf(" %10s", "-");
      }
      if (!r.ratios.empty()) {
        std::sort(r.ratios.begin(), r.ratios.end());
        std::printf(" %9.2fx\n", r.ratios[r.ratios.size() / 2]);
      } else {
        std::printf(" %10s\n", "-");
      }
    }
    std::printf("(%zu keys)\n", key_count());
  }

 private:
  struct Result {
    std::string name;
    double ns = 0;
    std::vector<double> ratios;
  };
  Result& result(const std::string& name) {
    for (Result& r : results_) {
      if (r.name == name) return r;
    }
    results_.push_back(Result{name, 0, {}});
    return results_.back();
  }
  std::vector<Result> results_;
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
