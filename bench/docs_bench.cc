// docs_bench: JSON documents in tuplekv_docs against the same JSON text in
// a native table, in one :memory: connection, same run:
//
//   native  CREATE TABLE n10k(id INTEGER PRIMARY KEY, doc TEXT)   (and n100k)
//   tuplekv CREATE VIRTUAL TABLE d10k USING tuplekv_docs          (and d100k)
//
// Data: 10,000 documents of ~10 KB and 100 of ~100 KB, generated from a
// fixed seed: an order-like object (owner, address, tags, flags) with an
// array of items, each item a few numbers, short strings and a ~150-byte
// description; a 10 KB document has ~200 leaves, a 100 KB one ~2,000.
// TUPLEKV_DOCS_BENCH_SCALE=0.1 (any fraction) shrinks both counts.
//
//   Field/<size>/<impl>   one field by path:
//                           tuplekv: SELECT doc FROM d WHERE id = ? AND path = '$.owner.name'
//                           native:  SELECT json_extract(doc, '$.owner.name') FROM n WHERE id = ?
//   Whole/<size>/<impl>   the whole document:
//                           tuplekv: SELECT doc FROM d WHERE id = ?
//                           native:  SELECT doc FROM n WHERE id = ?   (the text column)
//   Insert/10k/<impl>     one INSERT of a 10 KB document (inside one transaction)
//   SetField/10k/<impl>   UPDATE of one field of a 10 KB document (64 documents):
//                           tuplekv: UPDATE d SET doc = ? WHERE id = ? AND path = '$.owner.name'
//                           nocache: the same on a cache=0 table (leaves only)
//                           native:  UPDATE n SET doc = json_set(doc, '$.owner.name', ?) WHERE id = ?
//                         (what the document cache costs subtree writes: the
//                         entry is rebuilt from the document's leaves)
//
// Whole-document reads of tuplekv_docs read its document cache (one row of
// "<name>_json"; docs_vtab.cc), not the ~200 / ~2,000 leaf keys.
// After the run, "ratio" lines give native/tuplekv time for Field (how many
// times faster tuplekv is) and tuplekv/native for Whole and Insert (how
// many times slower).
//
// Reproduce:
//   cmake --build <build dir> --target docs_bench && <build dir>/bench/docs_bench
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ext/tuplekv.h"

namespace {

double scale() {
  const char* s = std::getenv("TUPLEKV_DOCS_BENCH_SCALE");
  const double v = s == nullptr ? 1.0 : std::atof(s);
  return v > 0 && v <= 1 ? v : 1.0;
}

int count_10k() { return std::max(10, static_cast<int>(10000 * scale())); }
int count_100k() { return std::max(2, static_cast<int>(100 * scale())); }

std::string make_doc(int seed, int items) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  auto word = [&](int n) {
    static const char* kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                                   "golf", "hotel", "india", "juliet", "kilo", "lima"};
    std::string s;
    for (int i = 0; i < n; ++i) {
      if (i) s += ' ';
      s += kWords[rng() % 12];
    }
    return s;
  };
  std::string d = "{\"order\":" + std::to_string(seed) + ",\"owner\":{\"name\":\"user" +
                  std::to_string(seed) + "\",\"email\":\"u" + std::to_string(seed) +
                  "@example.com\",\"address\":{\"street\":\"" + word(3) +
                  "\",\"city\":\"" + word(1) + "\",\"zip\":\"" + std::to_string(10000 + rng() % 89999) +
                  "\"}},\"created\":\"2024-05-01T10:00:00Z\",\"active\":true,\"score\":" +
                  std::to_string((rng() % 10000) / 100.0) + ",\"tags\":[\"" + word(1) + "\",\"" +
                  word(1) + "\",\"" + word(1) + "\"],\"items\":[";
  for (int i = 0; i < items; ++i) {
    if (i) d += ',';
    d += "{\"sku\":\"SKU-" + std::to_string(rng() % 100000) + "\",\"qty\":" +
         std::to_string(1 + rng() % 9) + ",\"price\":" + std::to_string((rng() % 100000) / 100.0) +
         ",\"desc\":\"" + word(22) + "\"}";
  }
  return d + "]}";
}

sqlite3* shared_db() {
  static sqlite3* db = [] {
    sqlite3* d = nullptr;
    sqlite3_open(":memory:", &d);
    if (tuplekv_register(d) != SQLITE_OK) std::abort();
    const char* setup =
        "CREATE TABLE n10k(id INTEGER PRIMARY KEY, doc TEXT);"
        "CREATE TABLE n100k(id INTEGER PRIMARY KEY, doc TEXT);"
        "CREATE VIRTUAL TABLE d10k USING tuplekv_docs;"
        "CREATE VIRTUAL TABLE d100k USING tuplekv_docs;"
        "CREATE TABLE ni(id INTEGER PRIMARY KEY, doc TEXT);"
        "CREATE VIRTUAL TABLE di USING tuplekv_docs;"
        "CREATE TABLE ns(id INTEGER PRIMARY KEY, doc TEXT);"
        "CREATE VIRTUAL TABLE ds USING tuplekv_docs;"
        "CREATE VIRTUAL TABLE dsn USING tuplekv_docs(cache=0);"
        "BEGIN;";
    char* err = nullptr;
    if (sqlite3_exec(d, setup, nullptr, nullptr, &err) != SQLITE_OK) {
      std::fprintf(stderr, "%s\n", err);
      std::abort();
    }
    for (const auto& [table, count, items] :
         {std::tuple<std::string, int, int>{"10k", count_10k(), 52},
          std::tuple<std::string, int, int>{"100k", count_100k(), 530}}) {
      sqlite3_stmt* ins_n = nullptr;
      sqlite3_stmt* ins_d = nullptr;
      sqlite3_prepare_v2(d, ("INSERT INTO n" + table + "(id, doc) VALUES (?1, ?2)").c_str(), -1,
                         &ins_n, nullptr);
      sqlite3_prepare_v2(d, ("INSERT INTO d" + table + "(id, doc) VALUES (?1, ?2)").c_str(), -1,
                         &ins_d, nullptr);
      for (int i = 1; i <= count; ++i) {
        const std::string doc = make_doc(i, items);
        for (sqlite3_stmt* s : {ins_n, ins_d}) {
          sqlite3_bind_int(s, 1, i);
          sqlite3_bind_text(s, 2, doc.data(), static_cast<int>(doc.size()), SQLITE_TRANSIENT);
          if (sqlite3_step(s) != SQLITE_DONE) {
            std::fprintf(stderr, "insert: %s\n", sqlite3_errmsg(d));
            std::abort();
          }
          sqlite3_reset(s);
        }
      }
      sqlite3_finalize(ins_n);
      sqlite3_finalize(ins_d);
    }
    for (const char* table : {"ns", "ds", "dsn"}) {
      sqlite3_stmt* ins = nullptr;
      sqlite3_prepare_v2(d, ("INSERT INTO " + std::string(table) + "(id, doc) VALUES (?1, ?2)").c_str(),
                         -1, &ins, nullptr);
      for (int i = 1; i <= 64; ++i) {
        const std::string doc = make_doc(i, 52);
        sqlite3_bind_int(ins, 1, i);
        sqlite3_bind_text(ins, 2, doc.data(), static_cast<int>(doc.size()), SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE) std::abort();
        sqlite3_reset(ins);
      }
      sqlite3_finalize(ins);
    }
    sqlite3_exec(d, "COMMIT", nullptr, nullptr, nullptr);
    return d;
  }();
  return db;
}

void run_lookup(benchmark::State& state, const std::string& sql, int count) {
  sqlite3* db = shared_db();
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    state.SkipWithError(sqlite3_errmsg(db));
    return;
  }
  int id = 1;
  int64_t bytes = 0;
  for (auto _ : state) {
    sqlite3_bind_int(stmt, 1, id);
    id = id % count + 1;
    while (sqlite3_step(stmt) == SQLITE_ROW) bytes += sqlite3_column_bytes(stmt, 0);
    sqlite3_reset(stmt);
  }
  sqlite3_finalize(stmt);
  state.counters["bytes/op"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}

void BM_Field_10k_tuplekv(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM d10k WHERE id = ?1 AND path = '$.owner.name'", count_10k());
}
void BM_Field_10k_native(benchmark::State& s) {
  run_lookup(s, "SELECT json_extract(doc, '$.owner.name') FROM n10k WHERE id = ?1", count_10k());
}
void BM_Field_100k_tuplekv(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM d100k WHERE id = ?1 AND path = '$.owner.name'", count_100k());
}
void BM_Field_100k_native(benchmark::State& s) {
  run_lookup(s, "SELECT json_extract(doc, '$.owner.name') FROM n100k WHERE id = ?1", count_100k());
}
void BM_Whole_10k_tuplekv(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM d10k WHERE id = ?1", count_10k());
}
void BM_Whole_10k_native(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM n10k WHERE id = ?1", count_10k());
}
void BM_Whole_100k_tuplekv(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM d100k WHERE id = ?1", count_100k());
}
void BM_Whole_100k_native(benchmark::State& s) {
  run_lookup(s, "SELECT doc FROM n100k WHERE id = ?1", count_100k());
}

void run_insert(benchmark::State& state, const char* table) {
  sqlite3* db = shared_db();
  static std::vector<std::string> docs = [] {
    std::vector<std::string> v;
    for (int i = 0; i < 64; ++i) v.push_back(make_doc(100000 + i, 52));
    return v;
  }();
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, ("INSERT INTO " + std::string(table) + "(doc) VALUES (?1)").c_str(), -1,
                     &stmt, nullptr);
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  size_t i = 0;
  for (auto _ : state) {
    const std::string& doc = docs[i++ % docs.size()];
    sqlite3_bind_text(stmt, 1, doc.data(), static_cast<int>(doc.size()), SQLITE_STATIC);
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      state.SkipWithError(sqlite3_errmsg(db));
      break;
    }
    sqlite3_reset(stmt);
  }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_finalize(stmt);
  state.SetItemsProcessed(state.iterations());
}

void run_set_field(benchmark::State& state, const std::string& sql) {
  sqlite3* db = shared_db();
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    state.SkipWithError(sqlite3_errmsg(db));
    return;
  }
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  int id = 1;
  int n = 0;
  for (auto _ : state) {
    const std::string name = "\"renamed" + std::to_string(++n) + "\"";
    sqlite3_bind_text(stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int(stmt, 2, id);
    id = id % 64 + 1;
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      state.SkipWithError(sqlite3_errmsg(db));
      break;
    }
    sqlite3_reset(stmt);
  }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_finalize(stmt);
}

void BM_SetField_10k_tuplekv(benchmark::State& s) {
  run_set_field(s, "UPDATE ds SET doc = ?1 WHERE id = ?2 AND path = '$.owner.name'");
}
void BM_SetField_10k_nocache(benchmark::State& s) {
  run_set_field(s, "UPDATE dsn SET doc = ?1 WHERE id = ?2 AND path = '$.owner.name'");
}
void BM_SetField_10k_native(benchmark::State& s) {
  run_set_field(s, "UPDATE ns SET doc = json_set(doc, '$.owner.name', json(?1)) WHERE id = ?2");
}

void BM_Insert_10k_tuplekv(benchmark::State& s) { run_insert(s, "di"); }
void BM_Insert_10k_native(benchmark::State& s) { run_insert(s, "ni"); }

BENCHMARK(BM_Field_10k_tuplekv);
BENCHMARK(BM_Field_10k_native);
BENCHMARK(BM_Field_100k_tuplekv);
BENCHMARK(BM_Field_100k_native);
BENCHMARK(BM_Whole_10k_tuplekv);
BENCHMARK(BM_Whole_10k_native);
BENCHMARK(BM_Whole_100k_tuplekv);
BENCHMARK(BM_Whole_100k_native);
BENCHMARK(BM_Insert_10k_tuplekv);
BENCHMARK(BM_Insert_10k_native);
BENCHMARK(BM_SetField_10k_tuplekv);
BENCHMARK(BM_SetField_10k_nocache);
BENCHMARK(BM_SetField_10k_native);

// Prints the console report and remembers each benchmark's time per op.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) times_[r.benchmark_name()] = r.GetAdjustedRealTime();
  }
  void print_ratios() const {
    auto t = [&](const std::string& n) {
      auto it = times_.find(n);
      return it == times_.end() ? 0.0 : it->second;
    };
    for (const char* size : {"10k", "100k"}) {
      const std::string s = size;
      const double f = t("BM_Field_" + s + "_tuplekv");
      const double w = t("BM_Whole_" + s + "_tuplekv");
      if (f > 0) {
        std::printf("ratio Field/%s: json_extract is %.1fx the time of tuplekv\n", size,
                    t("BM_Field_" + s + "_native") / f);
      }
      if (t("BM_Whole_" + s + "_native") > 0) {
        std::printf("ratio Whole/%s: tuplekv is %.1fx the time of the text column\n", size,
                    w / t("BM_Whole_" + s + "_native"));
      }
    }
    if (t("BM_SetField_10k_native") > 0) {
      std::printf("ratio SetField/10k: tuplekv is %.1fx, cache=0 %.1fx the time of json_set\n",
                  t("BM_SetField_10k_tuplekv") / t("BM_SetField_10k_native"),
                  t("BM_SetField_10k_nocache") / t("BM_SetField_10k_native"));
    }
    if (t("BM_Insert_10k_native") > 0) {
      std::printf("ratio Insert/10k: tuplekv is %.1fx the time of the native insert\n",
                  t("BM_Insert_10k_tuplekv") / t("BM_Insert_10k_native"));
    }
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  shared_db();  // load before timing
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
