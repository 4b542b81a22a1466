#include "core/model/native_scan.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <utility>

#include "core/model/table.h"

namespace tuplekv::model {

int log_est(uint64_t x) {
  static constexpr int kFraction[8] = {0, 2, 3, 5, 6, 7, 8, 9};
  int y = 40;
  if (x < 8) {
    if (x < 2) return 0;
    while (x < 8) {
      y -= 10;
      x <<= 1;
    }
  } else {
    const int shift = 60 - std::countl_zero(x);
    y += shift * 10;
    x >>= shift;
  }
  return kFraction[x & 7] + y - 10;
}

int log_est_add(int a, int b) {
  static constexpr int kAdd[32] = {10, 10, 9, 9, 8, 8, 7, 7, 7, 6, 6, 6, 5, 5, 5, 4,
                                   4,  4,  4, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2};
  if (a < b) std::swap(a, b);
  if (a > b + 49) return a;
  if (a > b + 31) return a + 1;
  return a + kAdd[a - b];
}

int size_estimate(std::string_view type) {
  // sqlite3AffinityType: a rolling hash of the last four characters, in
  // lower case, names the affinity; CHAR(n) and BLOB(n) also give a size.
  enum class Aff { kBlob, kText, kNumeric, kInteger, kReal };
  Aff aff = Aff::kNumeric;
  uint32_t h = 0;
  size_t size_from = std::string_view::npos;  // where to look for a size
  auto word = [](const char* w) {
    return (static_cast<uint32_t>(w[0]) << 24) | (static_cast<uint32_t>(w[1]) << 16) |
           (static_cast<uint32_t>(w[2]) << 8) | static_cast<uint32_t>(w[3]);
  };
  for (size_t i = 0; i < type.size(); ++i) {
    h = (h << 8) + static_cast<uint32_t>(std::tolower(static_cast<unsigned char>(type[i])));
    const size_t next = i + 1;
    if (h == word("char")) {
      aff = Aff::kText;
      size_from = next;
    } else if (h == word("clob") || h == word("text")) {
      aff = Aff::kText;
    } else if (h == word("blob") && (aff == Aff::kNumeric || aff == Aff::kReal)) {
      aff = Aff::kBlob;
      if (next < type.size() && type[next] == '(') size_from = next;
    } else if ((h == word("real") || h == word("floa") || h == word("doub")) && aff == Aff::kNumeric) {
      aff = Aff::kReal;
    } else if ((h & 0x00ffffff) == ((uint32_t{'i'} << 16) | (uint32_t{'n'} << 8) | uint32_t{'t'})) {
      aff = Aff::kInteger;
      break;
    }
  }
  int v = 0;  // about 4 bytes
  if (aff == Aff::kBlob || aff == Aff::kText) {
    if (size_from != std::string_view::npos) {
      // The first run of digits after the name, as sqlite3GetInt32 reads it.
      size_t at = size_from;
      while (at < type.size() && !std::isdigit(static_cast<unsigned char>(type[at]))) ++at;
      int64_t n = 0;
      while (at < type.size() && std::isdigit(static_cast<unsigned char>(type[at])) && n <= INT32_MAX) {
        n = n * 10 + (type[at++] - '0');
      }
      v = n > INT32_MAX ? 0 : static_cast<int>(n);
    } else {
      v = 16;  // about 20 bytes
    }
  }
  return std::min(v / 4 + 1, 255);
}

bool native_index_holds(const TableSchema& s, int index, int column) {
  const TableIndex& idx = s.indexes[static_cast<size_t>(index)];
  if (std::find(idx.columns.begin(), idx.columns.end(), column) != idx.columns.end()) return true;
  return !idx.automatic && std::find(s.key.begin(), s.key.end(), column) != s.key.end();
}

std::vector<NativeScan> native_full_scans(const TableSchema& s) {
  const size_t ncols = s.columns.size();
  int table_width = 1;  // no INTEGER PRIMARY KEY column: the rowid, or none
  for (const TableColumn& c : s.columns) table_width += c.size_estimate;
  const int table_size = log_est(static_cast<uint64_t>(4 * table_width));
  auto cost_of = [&](int width) { return 1 + (15 * log_est(static_cast<uint64_t>(4 * width))) / table_size; };

  std::vector<NativeScan> out;
  if (s.implicit_key()) {
    NativeScan rowid;
    rowid.cost = 16;
    rowid.holds.assign(ncols, true);
    out.push_back(std::move(rowid));
  }
  for (auto it = s.creation_order.rbegin(); it != s.creation_order.rend(); ++it) {
    NativeScan scan;
    scan.index = *it;
    if (*it == NativeScan::kPrimaryKey) {
      scan.first_column = s.key.empty() ? -1 : s.key.front();
      scan.holds.assign(ncols, true);
      scan.cost = cost_of(table_width - 1);
      out.push_back(std::move(scan));
      continue;
    }
    const TableIndex& index = s.indexes[static_cast<size_t>(*it)];
    scan.first_column = index.columns.empty() ? -1 : index.columns.front();
    scan.holds.assign(ncols, false);
    int width = 0;
    for (int c : index.columns) {
      scan.holds[static_cast<size_t>(c)] = true;
      width += s.columns[static_cast<size_t>(c)].size_estimate;
    }
    if (s.implicit_key()) {
      width += 1;  // the rowid
    } else {
      // The key columns the index lacks complete its entries, and count
      // in its width (not always among the columns it holds).
      std::vector<bool> listed = scan.holds;
      for (int k : s.key) {
        if (listed[static_cast<size_t>(k)]) continue;
        listed[static_cast<size_t>(k)] = true;
        scan.holds[static_cast<size_t>(k)] = native_index_holds(s, *it, k);
        width += s.columns[static_cast<size_t>(k)].size_estimate;
      }
    }
    scan.cost = cost_of(width);
    out.push_back(std::move(scan));
  }
  return out;
}

namespace {

bool holds_all(const NativeScan& scan, const std::vector<bool>& used) {
  for (size_t c = 0; c < used.size(); ++c) {
    if (used[c] && !(c < scan.holds.size() && scan.holds[c])) return false;
  }
  return true;
}

}  // namespace

size_t choose_native_scan(const std::vector<NativeScan>& scans, const std::vector<bool>& used) {
  size_t best = 0;
  bool found = false;
  for (size_t i = 0; i < scans.size(); ++i) {
    if (holds_all(scans[i], used) && (!found || scans[i].cost < scans[best].cost)) {
      best = i;
      found = true;
    }
  }
  return best;
}

size_t choose_native_scan(const std::vector<NativeScan>& scans, const std::vector<bool>& used,
                          const std::vector<bool>& not_null) {
  const size_t full = choose_native_scan(scans, used);
  size_t best = full;
  int best_cost = std::numeric_limits<int>::max();  // of the best range so far
  for (size_t i = 0; i < scans.size(); ++i) {
    const int first = scans[i].first_column;
    if (first < 0 || static_cast<size_t>(first) >= not_null.size() || !not_null[static_cast<size_t>(first)] ||
        !holds_all(scans[i], used)) {
      continue;
    }
    // Its range, priced down to the cheapest full scan where that is less
    // (not a rowid table's own scan, which SQLite does not weigh so).
    const int own = scans[i].cost - 1;
    const int cost = scans[full].first_column < 0 ? own : std::min(own, scans[full].cost);
    if (cost < best_cost) {
      best = i;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace tuplekv::model
