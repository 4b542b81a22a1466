// tuplekv_multimap: one key, many values; each pair is one key.
//
// USAGE
//   CREATE VIRTUAL TABLE enroll USING tuplekv_multimap(student, class);
//   CREATE VIRTUAL TABLE enroll USING tuplekv_multimap(student, class, reverse=1,
//                                                      subspace=e, store=memory);
//   INSERT INTO enroll VALUES ('alice', 'math'), ('alice', 'art'), ('bob', 'math');
//   SELECT class FROM enroll WHERE student = 'alice';     -- art, math (one prefix scan)
//   SELECT count(*) FROM enroll WHERE student = 'alice';  -- 2 (keys only)
//
// It behaves like the native table
//   CREATE TABLE enroll(student ANY NOT NULL, class ANY NOT NULL,
//                       PRIMARY KEY(student, class)) STRICT, WITHOUT ROWID
// plus a hidden column `raw`, the stored key. The two column names are
// the first two arguments (default `key`, `value`), each optionally typed
// as in tuplekv_table: tuplekv_multimap(student TEXT, class INTEGER)
// behaves like the same table with those STRICT types (values coerced and
// checked, '3' finds 3 in the INTEGER column; ext/keyspace_vtab.h).
//
// KEY LAYOUT (DESIGN.md §4), S the subspace prefix pack((NAME,)):
//   pair (k, v)             pack((S, k, v))             -> ''
//   reverse=1, also         pack((S, 'reverse', v, k))  -> ''
// (a pair whose key is 'reverse' shares that range; the model tells the
// two kinds apart by length: core/model/multimap.h).
//
// OPTIONS: reverse=0|1 (keep the reverse entries; `WHERE value = ?` is then
// a prefix scan too), subspace=NAME, store=sqlite|memory.
//
// PLANS as tuplekv_cells (ext/cells_vtab.cc): `key = ?` is a prefix range,
// `key = ? AND value = ?` a point lookup, `value = ?` a prefix range of the
// reverse entries when kept; every scan reads keys only.
//
// WRITES. A pair is stored once: plain INSERT of an existing pair (2 and
// 2.0 are one value, as in SQLite) is "UNIQUE constraint failed:
// enroll.student, enroll.class"; OR IGNORE skips it, OR REPLACE keeps one.
#include <cctype>
#include <optional>
#include <string>
#include <utility>

#include "core/model/multimap.h"
#include "ext/keyspace_vtab.h"
#include "ext/registry.h"

namespace tuplekv::ext {
namespace {

constexpr const char* kModule = "tuplekv_multimap";

using model::Multimap;
using model::MultimapKeys;

const Bytes kNoValue;

// a = key, b = value. Order 0: the pairs (k, v); order 1 (reverse=1): the
// reverse entries (v, k).
class MultimapModel final : public PairModel {
 public:
  explicit MultimapModel(MultimapKeys keys) : map_(nullptr, std::move(keys)) {}

  int order_count() const override { return keys().reverse() ? 2 : 1; }
  bool order_swapped(int order) const override { return order == 1; }
  void attach(OrderedStore* store) override {
    store_ = store;
    map_ = Multimap(store, keys());
  }
  const Bytes& order_prefix(int order) const override {
    return order == 0 ? keys().prefix() : keys().reverse_prefix();
  }
  Status split(int order, BytesView key, BytesView* a, BytesView* b,
               bool* is_entry) const override {
    return order == 0 ? keys().split_pair(key, a, b, is_entry)
                      : keys().split_reverse(key, a, b, is_entry);
  }
  Status split_any(BytesView key, BytesView* a, BytesView* b) const override {
    bool is_pair = false;
    TUPLEKV_RETURN_IF_ERROR(keys().split_pair(key, a, b, &is_pair));
    if (is_pair) return Status::OK();
    bool is_entry = false;
    TUPLEKV_RETURN_IF_ERROR(keys().split_reverse(key, a, b, &is_entry));
    if (is_entry) return Status::OK();
    return Status::Corruption("multimap: key " + blob_literal(key) +
                              " is neither a pair nor a reverse entry");
  }
  void raw_key(BytesView a, BytesView b, Bytes* out) const override {
    keys().pair_key(a, b, out);
  }
  Status find_sql_equal(BytesView a, BytesView b, bool* found, Bytes* fa, Bytes* fb) override {
    return map_.find_sql_equal(a, b, found, fa, fb);
  }
  Status get(BytesView a, BytesView b, Bytes* stored, bool* found) override {
    keys().pair_key(a, b, &key_);
    return store_->get(key_, stored, found);
  }
  Status put(BytesView a, BytesView b, BytesView) override { return map_.add_packed(a, b); }
  Status erase(BytesView a, BytesView b) override { return map_.remove_packed(a, b); }
  void key_in_order(int order, BytesView a, BytesView b, Bytes* out) const override {
    if (order == 0) {
      keys().pair_key(a, b, out);
    } else {
      keys().reverse_key(a, b, out);
    }
  }
  Status erase_other_orders(int order, BytesView a, BytesView b) override {
    if (!keys().reverse()) return Status::OK();
    key_in_order(1 - order, a, b, &key_);
    return store_->clear(key_);
  }
  Status rebind(BytesView prefix) override {
    TUPLEKV_ASSIGN_OR_RETURN(MultimapKeys k, MultimapKeys::make(prefix, keys().reverse()));
    map_ = Multimap(store_, std::move(k));
    return Status::OK();
  }

 private:
  const MultimapKeys& keys() const { return map_.keys(); }

  Multimap map_;
  OrderedStore* store_ = nullptr;
  Bytes key_;
};

// "name" or "name TYPE" -> name and type: a STRICT type name or any name
// SQLite gives one's affinity (core/model/table.h), size arguments allowed.
Status column_def(const std::string& arg, std::string* out, model::ColumnType* type_out,
                  std::string_view* label_out) {
  const size_t space = arg.find_first_of(" \t\n");
  std::string name = dequote(arg.substr(0, space));
  std::string type;
  if (space != std::string::npos) {
    type = arg.substr(arg.find_first_not_of(" \t\n", space));
    while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back()))) type.pop_back();
  }
  if (name.empty() || name == "raw") {
    return Status::InvalidArgument(std::string(kModule) + ": bad column name '" + arg + "'");
  }
  *type_out = model::ColumnType::kAny;
  if (!type.empty()) {
    std::string words = type.substr(0, type.find('('));
    while (!words.empty() && std::isspace(static_cast<unsigned char>(words.back()))) words.pop_back();
    const std::optional<model::ColumnType> t = model::column_type_of(words);
    if (!t || words.empty() || words.find_first_of("\"'`[") != std::string::npos) {
      return Status::InvalidArgument(std::string(kModule) + ": unknown type '" + type + "' for column " +
                                     name + " (use INTEGER, REAL, TEXT, BLOB or ANY)");
    }
    *type_out = *t;
    *label_out = model::declared_type_label(words, *t);
  }
  *out = std::move(name);
  return Status::OK();
}

Status open_multimap(const std::vector<std::string>& positional,
                     const std::vector<ModuleOption>& rest, BytesView prefix, PairSpec* spec) {
  if (positional.size() != 0 && positional.size() != 2) {
    return Status::InvalidArgument(std::string(kModule) +
                                   ": expected two column names (key and value), got " +
                                   std::to_string(positional.size()));
  }
  spec->a_name = "key";
  spec->b_name = "value";
  if (positional.size() == 2) {
    TUPLEKV_RETURN_IF_ERROR(column_def(positional[0], &spec->a_name, &spec->a_type, &spec->a_type_label));
    TUPLEKV_RETURN_IF_ERROR(column_def(positional[1], &spec->b_name, &spec->b_type, &spec->b_type_label));
    if (sqlite3_stricmp(spec->a_name.c_str(), spec->b_name.c_str()) == 0) {
      return Status::InvalidArgument(std::string(kModule) + ": duplicate column name " +
                                     spec->a_name);
    }
  }
  bool reverse = false;
  for (const ModuleOption& o : rest) {
    if (o.name == "reverse") {
      TUPLEKV_RETURN_IF_ERROR(parse_bool_option(kModule, o, &reverse));
    } else {
      return Status::InvalidArgument(std::string(kModule) + ": unknown option '" + o.written + "'");
    }
  }
  TUPLEKV_ASSIGN_OR_RETURN(MultimapKeys keys, MultimapKeys::make(prefix, reverse));
  spec->model = std::make_unique<MultimapModel>(std::move(keys));
  return Status::OK();
}

}  // namespace

int register_multimap_module(sqlite3* db, char** err) {
  return register_pair_module(db, kModule, open_multimap, err);
}

}  // namespace tuplekv::ext
