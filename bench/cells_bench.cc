// cells_bench: reading one row and one column of a 1,000 x 1,000 sparse
// sheet, 10% filled (100,000 cells), tuplekv_cells against a native table
// holding the same cells, in one :memory: connection:
//
//   native  CREATE TABLE n(row ANY NOT NULL, col ANY NOT NULL, value ANY,
//                          PRIMARY KEY(row, col)) STRICT, WITHOUT ROWID
//           + CREATE INDEX n_col ON n(col, row)
//   both    CREATE VIRTUAL TABLE b USING tuplekv_cells(layout=both)
//
// ReadRow/<impl>     SELECT col, value FROM t WHERE row = ?   (~100 cells)
// ReadColumn/<impl>  SELECT row, value FROM t WHERE col = ?   (~100 cells)
// Rows and columns are integers 0..999; the argument cycles through them.
// The ratio tuplekv/native is the ratio of the two ns/op.
//
// Reproduce:
//   cmake --build <build dir> --target cells_bench && <build dir>/bench/cells_bench
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "ext/tuplekv.h"

namespace {

constexpr int kSide = 1000;

sqlite3* shared_db() {
  static sqlite3* db = [] {
    sqlite3* d = nullptr;
    sqlite3_open(":memory:", &d);
    if (tuplekv_register(d) != SQLITE_OK) std::abort();
    const char* setup =
        "CREATE TABLE n(row ANY NOT NULL, col ANY NOT NULL, value ANY, PRIMARY KEY(row, col)) "
        "STRICT, WITHOUT ROWID;"
        "CREATE VIRTUAL TABLE b USING tuplekv_cells(layout=both);"
        "BEGIN;";
    char* err = nullptr;
    if (sqlite3_exec(d, setup, nullptr, nullptr, &err) != SQLITE_OK) {
      std::fprintf(stderr, "%s\n", err);
      std::abort();
    }
    // 10% of the cells, chosen by a fixed seed.
    std::mt19937 rng(42);
    sqlite3_stmt* ins_n = nullptr;
    sqlite3_stmt* ins_b = nullptr;
    sqlite3_prepare_v2(d, "INSERT INTO n VALUES (?1, ?2, ?3)", -1, &ins_n, nullptr);
    sqlite3_prepare_v2(d, "INSERT INTO b VALUES (?1, ?2, ?3)", -1, &ins_b, nullptr);
    for (int r = 0; r < kSide; ++r) {
      for (int c = 0; c < kSide; ++c) {
        if (rng() % 10 != 0) continue;
        for (sqlite3_stmt* s : {ins_n, ins_b}) {
          sqlite3_bind_int(s, 1, r);
          sqlite3_bind_int(s, 2, c);
          sqlite3_bind_int(s, 3, r * kSide + c);
          if (sqlite3_step(s) != SQLITE_DONE) std::abort();
          sqlite3_reset(s);
        }
      }
    }
    sqlite3_finalize(ins_n);
    sqlite3_finalize(ins_b);
    sqlite3_exec(d, "COMMIT; CREATE INDEX n_col ON n(col, row); ANALYZE;", nullptr, nullptr, nullptr);
    return d;
  }();
  return db;
}

void run(benchmark::State& state, const char* sql) {
  sqlite3* db = shared_db();
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) std::abort();
  int arg = 0;
  int64_t cells = 0;
  for (auto _ : state) {
    sqlite3_bind_int(stmt, 1, arg);
    arg = (arg + 37) % kSide;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      benchmark::DoNotOptimize(sqlite3_column_int64(stmt, 1));
      ++cells;
    }
    sqlite3_reset(stmt);
  }
  sqlite3_finalize(stmt);
  state.counters["cells/op"] = static_cast<double>(cells) / static_cast<double>(state.iterations());
}

void BM_ReadRow_native(benchmark::State& s) { run(s, "SELECT col, value FROM n WHERE row = ?1"); }
void BM_ReadRow_tuplekv(benchmark::State& s) { run(s, "SELECT col, value FROM b WHERE row = ?1"); }
void BM_ReadColumn_native(benchmark::State& s) { run(s, "SELECT row, value FROM n WHERE col = ?1"); }
void BM_ReadColumn_tuplekv(benchmark::State& s) { run(s, "SELECT row, value FROM b WHERE col = ?1"); }
void BM_FullScan_tuplekv(benchmark::State& s) { run(s, "SELECT row, value FROM b WHERE ?1 IS NOT NULL"); }

BENCHMARK(BM_ReadRow_native);
BENCHMARK(BM_ReadRow_tuplekv);
BENCHMARK(BM_ReadColumn_native);
BENCHMARK(BM_ReadColumn_tuplekv);
BENCHMARK(BM_FullScan_tuplekv)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
