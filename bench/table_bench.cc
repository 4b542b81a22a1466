// table_bench: tuplekv_table against its native reference, the STRICT,
// WITHOUT ROWID table with the same CREATE INDEX, over the same rows in one
// :memory: connection and one run:
//
//   native  CREATE TABLE n(g INTEGER NOT NULL, j INTEGER NOT NULL, name TEXT,
//                          score REAL, region TEXT, PRIMARY KEY(g, j))
//                          STRICT, WITHOUT ROWID
//           CREATE INDEX n_region ON n(region)
//   sqlite  CREATE VIRTUAL TABLE s USING tuplekv_table(g INTEGER, j INTEGER,
//             name TEXT, score REAL, region TEXT, PRIMARY KEY(g, j),
//             INDEX s_region(region))                       (shadow table s_kv)
//   memory  the same with store=memory
//
// Data: 1M rows, g < 10000, j < 100 (a prefix g holds 100 rows), a name of
// 8-24 letters, a score, and one of 100,000 regions (10 rows each),
// inserted in a shuffled order. Benchmarks, each <op>/<impl>:
//   BulkInsert   1M INSERTs in one transaction into the empty table, index
//                declared up front on both sides                     (ns/row)
//   Lookup       100k `WHERE g = ? AND j = ?`, every column read    (ns/lookup)
//   PrefixScan   10k `WHERE g = ?` (100 rows each), every column read (ns/row)
//   IndexLookup  10k `WHERE region = ?` (10 rows each), every column read,
//                so each index entry fetches its row                (ns/row)
//   IndexCovered the same reading only g, j, region: answered by the index
//                alone                                              (ns/row)
//   FullScan     one scan of every row, every column read           (ns/row)
//   SumScan      `SELECT sum(score)`: one scan of every row, one column
//                read by SQL itself and none by the application     (ns/row)
//   CountScan    `SELECT count(*)`: no column read; natively a count of
//                the B-tree's cells (OP_Count), here a scan of the
//                region index whose entries are never split          (ns/row)
// Each tuplekv benchmark has a `vs_native` counter: its time divided by the
// time of the same operation on the native table, run interleaved with it
// (after every iteration, clock paused), so load that comes and goes on a
// shared machine hits both sides alike. A summary table at the end repeats
// ns/op (fastest repetition) and the ratios (median over repetitions).
//
// Reproduce:
//   cmake --build <build dir> --target table_bench && <build dir>/bench/table_bench
// Smaller: TUPLEKV_BENCH_ROWS=100000; one operation: --benchmark_filter=Lookup
// Instructions of one side alone (no interleaved native run):
//   TUPLEKV_BENCH_ROWS=100000 TUPLEKV_BENCH_UNPAIRED=1 valgrind --tool=callgrind
//     --toggle-collect='*read_all*' <build dir>/bench/table_bench --benchmark_filter='^Lookup/sqlite$'
// (bulk insert: --toggle-collect='*Conn::load*' --benchmark_filter='^BulkInsert/sqlite').
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

#include "ext/tuplekv.h"

namespace tuplekv {
namespace {

constexpr size_t kDefaultRows = 1000000;
constexpr size_t kGroupRows = 100;   // rows per g
constexpr size_t kRegionRows = 10;   // rows per region
constexpr size_t kLookups = 100000;
constexpr size_t kScans = 10000;

size_t row_count() {
  static const size_t n = [] {
    const char* env = std::getenv("TUPLEKV_BENCH_ROWS");
    const long v = env != nullptr ? std::atol(env) : 0;
    return v >= static_cast<long>(kGroupRows) ? static_cast<size_t>(v) / kGroupRows * kGroupRows
                                              : kDefaultRows;
  }();
  return n;
}

size_t region_count() { return row_count() / kRegionRows; }

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "table_bench: %s failed\n", what);
    std::exit(1);
  }
}

struct Data {
  std::vector<std::string> names;     // row i is (i / 100, i % 100)
  std::vector<double> scores;
  std::vector<std::string> region_names;
  std::vector<size_t> region_of;      // per row
  std::vector<size_t> order;          // insertion order
  std::vector<size_t> lookups;        // row numbers
  std::vector<size_t> scan_groups;    // g values
  std::vector<size_t> region_lookups;  // region numbers
};

const Data& data() {
  static const Data d = [] {
    Data d;
    const size_t n = row_count();
    std::mt19937_64 rng(20240611);
    for (size_t r = 0; r < region_count(); ++r) {
      d.region_names.push_back("region-" + std::to_string(r * 7919 % region_count()));
    }
    // Every region gets exactly kRegionRows rows, spread over the table.
    std::vector<size_t> regions(n);
    for (size_t i = 0; i < n; ++i) regions[i] = i % region_count();
    std::shuffle(regions.begin(), regions.end(), rng);
    for (size_t i = 0; i < n; ++i) {
      std::string name(8 + rng() % 17, 'a');
      for (char& c : name) c = static_cast<char>('a' + rng() % 26);
      d.names.push_back(std::move(name));
      d.scores.push_back(static_cast<double>(rng() % 1000000) / 100.0);
      d.region_of.push_back(regions[i]);
    }
    d.order.resize(n);
    for (size_t i = 0; i < n; ++i) d.order[i] = i;
    std::shuffle(d.order.begin(), d.order.end(), rng);
    for (size_t i = 0; i < kLookups; ++i) d.lookups.push_back(rng() % n);
    for (size_t i = 0; i < kScans; ++i) d.scan_groups.push_back(rng() % (n / kGroupRows));
    for (size_t i = 0; i < kScans; ++i) d.region_lookups.push_back(rng() % region_count());
    return d;
  }();
  return d;
}

// ---------------------------------------------------------------------------
// The connection and its three tables

enum class Impl { kNative, kSqlite, kMemory };

const char* impl_name(Impl i) {
  return i == Impl::kNative ? "native" : i == Impl::kSqlite ? "sqlite" : "memory";
}
const char* table_of(Impl i) { return i == Impl::kNative ? "n" : i == Impl::kSqlite ? "s" : "m"; }

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
      std::fprintf(stderr, "table_bench: %s: %s\n", sql.c_str(), err != nullptr ? err : "?");
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
    const std::string columns =
        "g INTEGER, j INTEGER, name TEXT, score REAL, region TEXT, PRIMARY KEY(g, j)";
    switch (i) {
      case Impl::kNative:
        exec("CREATE TABLE " + table +
             "(g INTEGER NOT NULL, j INTEGER NOT NULL, name TEXT, score REAL, region TEXT, "
             "PRIMARY KEY(g, j)) STRICT, WITHOUT ROWID;"
             "CREATE INDEX " + table + "_region ON " + table + "(region)");
        break;
      case Impl::kSqlite:
        exec("CREATE VIRTUAL TABLE " + table + " USING tuplekv_table(" + columns + ", INDEX " +
             table + "_region(region))");
        break;
      case Impl::kMemory:
        exec("CREATE VIRTUAL TABLE " + table + " USING tuplekv_table(" + columns + ", INDEX " +
             table + "_region(region), store=memory)");
        break;
    }
  }

  // Every row, one INSERT each, in one transaction, in the shuffled order.
  // Not inlined, so a profiler can count it alone (--toggle-collect='*load*').
  __attribute__((noinline)) void load(Impl i, const std::string& table) {
    const Data& d = data();
    exec("BEGIN");
    sqlite3_stmt* ins = prepare("INSERT INTO " + table + " VALUES (?1, ?2, ?3, ?4, ?5)");
    for (size_t k : d.order) {
      const std::string& name = d.names[k];
      const std::string& region = d.region_names[d.region_of[k]];
      sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(k / kGroupRows));
      sqlite3_bind_int64(ins, 2, static_cast<sqlite3_int64>(k % kGroupRows));
      sqlite3_bind_text(ins, 3, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
      sqlite3_bind_double(ins, 4, d.scores[k]);
      sqlite3_bind_text(ins, 5, region.data(), static_cast<int>(region.size()), SQLITE_STATIC);
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

void ensure_loaded(Impl i) {
  static bool loaded[3] = {false, false, false};
  bool& done = loaded[static_cast<int>(i)];
  if (done) return;
  conn().create(i, table_of(i));
  conn().load(i, table_of(i));
  done = true;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// Reads every column of every row of `st` (each as its own type, as an
// application would), then resets it. Not inlined, so a profiler can be
// pointed at the measured loop alone.
__attribute__((noinline)) size_t read_all(sqlite3_stmt* st, uint64_t* sum) {
  size_t rows = 0;
  const int ncols = sqlite3_column_count(st);
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < ncols; ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
          *sum += static_cast<uint64_t>(sqlite3_column_int64(st, c));
          break;
        case SQLITE_FLOAT:
          *sum += static_cast<uint64_t>(sqlite3_column_double(st, c));
          break;
        case SQLITE_TEXT:
          *sum += static_cast<uint64_t>(sqlite3_column_bytes(st, c)) +
                  sqlite3_column_text(st, c)[0];
          break;
        default:
          break;
      }
    }
    ++rows;
  }
  sqlite3_reset(st);
  return rows;
}

// One operation on one table: prepared once, run as often as asked.
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
  size_t ops() const override { return row_count(); }

 private:
  Impl impl_;
};

// A prepared query run `count` times with the integer arguments `args(j)`;
// `rows` is how many rows all runs must read together.
class QueryOp : public Op {
 public:
  QueryOp(Impl impl, const std::string& select, const std::string& where, size_t count,
          size_t expected_rows)
      : count_(count), expected_rows_(expected_rows) {
    ensure_loaded(impl);
    st_ = conn().prepare("SELECT " + select + " FROM " + table_of(impl) + where);
  }
  ~QueryOp() override { sqlite3_finalize(st_); }
  double run() override {
    uint64_t sum = 0;
    size_t rows = 0;
    const auto t0 = std::chrono::steady_clock::now();
    // One read transaction per batch on both sides, as one statement's
    // lookups would share one.
    conn().exec("BEGIN");
    for (size_t j = 0; j < count_; ++j) {
      bind(st_, j);
      rows += read_all(st_, &sum);
    }
    conn().exec("COMMIT");
    const double ns = since(t0);
    check(rows == expected_rows_, "every query read its rows");
    benchmark::DoNotOptimize(sum);
    return ns;
  }
  size_t ops() const override { return ops_ != 0 ? ops_ : expected_rows_; }

 protected:
  virtual void bind(sqlite3_stmt* st, size_t j) = 0;
  size_t ops_ = 0;  // operations per run when not one per row

 private:
  size_t count_;
  size_t expected_rows_;
  sqlite3_stmt* st_ = nullptr;
};

const char* kAllColumns = "g, j, name, score, region";

class LookupOp final : public QueryOp {
 public:
  explicit LookupOp(Impl impl)
      : QueryOp(impl, kAllColumns, " WHERE g = ?1 AND j = ?2", kLookups, kLookups) {}

 protected:
  void bind(sqlite3_stmt* st, size_t j) override {
    const size_t row = data().lookups[j];
    sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(row / kGroupRows));
    sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(row % kGroupRows));
  }
};

class PrefixScanOp final : public QueryOp {
 public:
  explicit PrefixScanOp(Impl impl)
      : QueryOp(impl, kAllColumns, " WHERE g = ?1", kScans, kScans * kGroupRows) {}

 protected:
  void bind(sqlite3_stmt* st, size_t j) override {
    sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(data().scan_groups[j]));
  }
};

class IndexLookupOp : public QueryOp {
 public:
  explicit IndexLookupOp(Impl impl, const char* select = kAllColumns)
      : QueryOp(impl, select, " WHERE region = ?1", kScans, kScans * kRegionRows) {}

 protected:
  void bind(sqlite3_stmt* st, size_t j) override {
    const std::string& r = data().region_names[data().region_lookups[j]];
    sqlite3_bind_text(st, 1, r.data(), static_cast<int>(r.size()), SQLITE_STATIC);
  }
};

class IndexCoveredOp final : public IndexLookupOp {
 public:
  explicit IndexCoveredOp(Impl impl) : IndexLookupOp(impl, "g, j, region") {}
};

class FullScanOp final : public QueryOp {
 public:
  explicit FullScanOp(Impl impl) : QueryOp(impl, kAllColumns, "", 1, row_count()) {}

 protected:
  void bind(sqlite3_stmt*, size_t) override {}
};

// The full scan without the application's column reads, which cost both
// sides the same and so dilute FullScan's ratio: here the ratio is that of
// the scans themselves. One result row; timed per table row.
class SumScanOp final : public QueryOp {
 public:
  explicit SumScanOp(Impl impl) : QueryOp(impl, "sum(score)", "", 1, 1) { ops_ = row_count(); }

 protected:
  void bind(sqlite3_stmt*, size_t) override {}
};

class CountScanOp final : public QueryOp {
 public:
  explicit CountScanOp(Impl impl) : QueryOp(impl, "count(*)", "", 1, 1) { ops_ = row_count(); }

 protected:
  void bind(sqlite3_stmt*, size_t) override {}
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
// native table: `vs_native` is the ratio of the two sums.
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
  state.SetItemsProcessed(
      static_cast<int64_t>(static_cast<double>(state.iterations()) * per_iteration));
  state.counters["per_op"] = benchmark::Counter(
      per_iteration, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (native != nullptr && native_ns > 0) state.counters["vs_native"] = own_ns / native_ns;
}

#define TUPLEKV_TABLE_BENCH(OpType, op)                                                       \
  BENCHMARK(BM_Op<OpType, Impl::kNative>)->Name(op "/native")->Unit(benchmark::kMillisecond); \
  BENCHMARK(BM_Op<OpType, Impl::kSqlite>)->Name(op "/sqlite")->Unit(benchmark::kMillisecond); \
  BENCHMARK(BM_Op<OpType, Impl::kMemory>)->Name(op "/memory")->Unit(benchmark::kMillisecond)

TUPLEKV_TABLE_BENCH(LookupOp, "Lookup");
TUPLEKV_TABLE_BENCH(PrefixScanOp, "PrefixScan");
TUPLEKV_TABLE_BENCH(IndexLookupOp, "IndexLookup");
TUPLEKV_TABLE_BENCH(IndexCoveredOp, "IndexCovered");
TUPLEKV_TABLE_BENCH(FullScanOp, "FullScan");
TUPLEKV_TABLE_BENCH(SumScanOp, "SumScan");
TUPLEKV_TABLE_BENCH(CountScanOp, "CountScan");
// A million inserts per iteration: a few iterations are plenty.
BENCHMARK(BM_Op<BulkInsertOp, Impl::kNative>)
    ->Name("BulkInsert/native")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Op<BulkInsertOp, Impl::kSqlite>)
    ->Name("BulkInsert/sqlite")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Op<BulkInsertOp, Impl::kMemory>)
    ->Name("BulkInsert/memory")->Unit(benchmark::kMillisecond)->Iterations(3);

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

  // "separate" compares the fastest repetitions of the two benchmarks (each
  // warm in its own loop); "paired" is the median vs_native counter (each
  // iteration followed by a native run under the same load).
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
    std::printf("(%zu rows)\n", row_count());
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
