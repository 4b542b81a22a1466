// Typed tables keyed by a tuple, with secondary indexes: the schema of a
// tuplekv_table, the STRICT-table rules for its values, and its key layout
// (FoundationDB data-modeling guide, "tables" and "indexes"; DESIGN.md §4).
//
//   row        pack((S, pk1, pk2, ...))       pack((c1, c2, ..., k1, ...))
//   index I    pack((I, v1, ..., pk1, ...))   ''
//
// c1, c2, ... are the non-key columns; k1, ... the values of the key
// columns that are keyed by a collation key (NOCASE or RTRIM text: there
// pk1 is 'ann' for the value 'Ann'), in key order; usually there are none.
//
// S is the table's subspace name, I an index name. A table declared
// without PRIMARY KEY has an implicit integer key assigned like a rowid:
// its rows are pack((S, rowid)) and its index entries end with the rowid.
// A row and all of its index entries are written and removed together
// (TableRows below), so an index never drifts from its rows.
//
// Schema text (the module arguments that are not `option=value`), e.g.
//   user_id INTEGER, name TEXT NOT NULL DEFAULT 'x', region TEXT,
//   PRIMARY KEY(user_id), INDEX region_idx(region)
// Column types are those of a STRICT table: INTEGER (or INT), REAL, TEXT,
// BLOB, ANY; a column without a type is ANY. So that the column list of an
// ordinary CREATE TABLE works too, any other type name SQLite would give
// INTEGER, TEXT, REAL or BLOB affinity (VARCHAR(8), BIGINT, FLOAT, DOUBLE
// PRECISION ...) is that STRICT type; names of NUMERIC affinity (NUMERIC,
// DECIMAL, DATE, BOOLEAN ...) have no STRICT counterpart and are errors.
// Column constraints: NOT NULL, NULL, DEFAULT <literal or (expr)>, PRIMARY
// KEY (one column), UNIQUE, COLLATE BINARY|NOCASE|RTRIM, CHECK (expr), each
// optionally named by CONSTRAINT name. In keys and index entries a TEXT or ANY column
// of NOCASE or RTRIM collation is keyed by the collation key of its value
// (core/model/collation_key.h), so keys still sort and match as SQLite
// compares that column; the value itself is then also stored with the row
// (`key_copies` below). Table constraints: PRIMARY KEY(cols...)
// in any column order, UNIQUE(cols...), CHECK (expr), INDEX name(cols...),
// UNIQUE INDEX name(cols...); a listed column may say ASC or DESC and COLLATE with its
// own collation (any other is an error). Keys sort ascending whatever the
// directions say; they are kept (key_descending, TableIndex::descending)
// because the reference table stores a DESC column descending, which shows
// wherever rows come in the order a scan visits them (stored_descending()).
// Key columns are NOT NULL. A UNIQUE constraint is kept as an automatic
// unique index (TableIndex::automatic); as in SQLite, a UNIQUE naming the
// primary key's columns or an earlier UNIQUE's, in the same order, makes
// none.
//
// Values follow a STRICT table (coerce()): INTEGER takes integers, reals
// with an exact integer value and text that SQLite's numeric affinity turns
// into one of those; REAL takes reals, integers and numeric text (stored as
// REAL); TEXT takes text and numbers (as the text SQLite renders them);
// BLOB only blobs; ANY anything, unchanged. Anything else is kTypeMismatch
// "cannot store TEXT value in INTEGER column t.c", SQLite's own message.
// -0.0 in a REAL column is stored as 0.0 (SQLite does the same), so key
// order and equality of typed columns are exactly SQLite's; an ANY column
// keeps -0.0, as SQLite does, and finds it as 0 (core/model/sql_any.h).
//
// Thread safety: none.
#ifndef TUPLEKV_CORE_MODEL_TABLE_H_
#define TUPLEKV_CORE_MODEL_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "core/key_mapping.h"
#include "core/status.h"
#include "core/store.h"
#include "core/tuple.h"
#include "core/tuple_frame.h"

namespace tuplekv::model {

enum class ColumnType : uint8_t { kInteger, kReal, kText, kBlob, kAny };

// "INTEGER", "REAL", "TEXT", "BLOB", "ANY".
std::string_view column_type_name(ColumnType t);

// The STRICT type of a declared type name (its words, size arguments
// removed: "VARCHAR", "DOUBLE PRECISION"), by the rules above; nullopt for
// a name of NUMERIC affinity.
std::optional<ColumnType> column_type_of(std::string_view type_name);
// The name SQLite's STRICT messages give a column declared `words` of
// `type`: "INT" for INT (a STRICT type of its own there), else the type.
std::string_view declared_type_label(std::string_view words, ColumnType type);

struct TableColumn {
  std::string name;
  ColumnType type = ColumnType::kAny;
  std::string_view type_label;  // for messages: declared_type_label()
  int size_estimate = 1;        // SQLite's, for its planner (core/model/native_scan.h)
  std::string_view collation = "BINARY";  // "BINARY", "NOCASE" or "RTRIM"
  bool not_null = false;       // declared NOT NULL, or a key column
  std::string default_sql;     // the DEFAULT expression as written; empty: none
  int key_pos = -1;            // position in the primary key, or -1
  // Position in the stored value, or -1: a key column, unless its value is
  // stored as well (keyed_by_collation()).
  int value_pos = -1;

  // Whether the column's key elements are collation keys of its values
  // (TEXT or ANY, collation NOCASE or RTRIM) rather than the values.
  bool keyed_by_collation() const;
};

struct TableIndex {
  std::string name;
  std::vector<int> columns;  // column numbers, in index order
  std::vector<bool> descending;  // per column: declared DESC
  // No two rows may have equal, non-NULL values in `columns` (a UNIQUE
  // constraint, or UNIQUE INDEX); SQLite's NULLs are distinct.
  bool unique = false;
  // Made for a UNIQUE constraint rather than named by the schema: its name
  // is automatic_index_name(S, n) and follows the subspace S.
  bool automatic = false;
};

// A CHECK constraint, column or table. The schema only keeps its SQL:
// evaluating it takes SQLite (ext/table_check_constraints.h).
struct TableCheck {
  // What "CHECK constraint failed: ..." names, as SQLite's message does:
  // the CONSTRAINT name given earlier in the same definition, else `text`.
  std::string label;
  std::string text;  // the expression as written, spaces around it trimmed
  // `text` without the qualifiers of its column names (`t.a` is `a`,
  // `main.t.a` too), which a rename of the table would leave naming the
  // old name.
  std::string expr;
};

// The name of the n-th (from 1) automatic index of a table in subspace S:
// "<S>_autoindex_<n>", as SQLite names its own.
std::string automatic_index_name(std::string_view subspace, int n);

struct TableSchema {
  std::vector<TableColumn> columns;
  std::vector<int> key;          // column numbers, in key order; empty: implicit integer key
  std::vector<bool> key_descending;  // per key position: declared DESC
  std::vector<int> values;       // non-key column numbers, in declaration order
  // Key columns keyed_by_collation(), in key order: their values follow
  // the non-key columns' in the stored value.
  std::vector<int> key_copies;
  std::vector<TableIndex> indexes;
  std::vector<TableCheck> checks;  // in declaration order, which SQLite checks them in
  // The order SQLite checks uniqueness in: -1 the primary key (or rowid),
  // else a unique index's number.
  std::vector<int> unique_check_order;
  // The order the reference table's indexes are created in: -1 the
  // primary key (not for an implicit key), else an index's number.
  std::vector<int> creation_order;

  bool implicit_key() const { return key.empty(); }
  // Whether the reference table stores the entries of the primary key
  // (index -1) or of `index` in descending order of all they hold: every
  // column declared DESC, and for an index also every key column it
  // appends (SQLite gives those the primary key's directions; a rowid is
  // appended ascending, so never with an implicit key). A scan of tuple
  // keys in reverse then visits rows in the reference table's order. Mixed
  // directions have no scan direction that does.
  bool stored_descending(int index) const;
  bool has_unique_index() const {
    for (const TableIndex& i : indexes) {
      if (i.unique) return true;
    }
    return false;
  }
  // Names the automatic indexes after subspace S.
  void name_automatic_indexes(std::string_view subspace);
  // Number of key elements (1 for the implicit key).
  size_t key_size() const { return key.empty() ? 1 : key.size(); }
  int find_column(std::string_view name) const;  // case-insensitive; -1 if none
};

// SQLite's message for a row that repeats the values of unique index
// `index` of `table`: "UNIQUE constraint failed: t.a, t.b".
std::string unique_failed_message(std::string_view table, const TableSchema& s, size_t index);

// Parses the schema arguments (each one column definition or table
// constraint, as SQLite split them at top-level commas). Messages start with
// `module` and name the table, e.g.
//   tuplekv_table: unknown type 'VARCHAR' for column t.name (use INTEGER, REAL, TEXT, BLOB or ANY)
Status parse_table_schema(std::string_view module, std::string_view table,
                          const std::vector<std::string>& args, TableSchema* out);

// One SQL value as SQLite holds it. `bytes` points into the caller's
// buffer (TEXT: UTF-8 without a terminator).
struct SqlValue {
  enum class Kind : uint8_t { kNull, kInteger, kReal, kText, kBlob };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double r = 0;
  BytesView bytes;
};

// The name SQLite's STRICT message gives a value's type: NULL, INT, REAL,
// TEXT, BLOB.
std::string_view sql_kind_name(SqlValue::Kind k);

// SQLite's own conversions, supplied by the caller (ext/ asks SQLite), so
// that text looks numeric exactly when SQLite says it does.
class SqlConversions {
 public:
  virtual ~SqlConversions() = default;
  // Numeric affinity applied to TEXT `v`: kInteger or kReal when SQLite
  // converts it, else `v` unchanged.
  virtual SqlValue numeric(const SqlValue& v) = 0;
  // The TEXT SQLite renders number `v` as (REAL: "%!.15g").
  virtual void text(const SqlValue& v, std::string* out) = 0;
};

// The value a STRICT column of type `t` stores for `v` (NULL stays NULL;
// NOT NULL is the caller's check), into *out. `buf` holds converted text.
// kTypeMismatch naming `table`.`column` when it cannot be stored.
// `type_label` names the type in that message (default: the type's name).
Status coerce(ColumnType t, const SqlValue& v, SqlConversions* conv, std::string_view table,
              std::string_view column, SqlValue* out, std::string* buf, std::string_view type_label = {});

// Appends the tuple element for `v` (NULL -> null, INTEGER -> int, REAL ->
// double, TEXT -> string, BLOB -> bytes). kInvalidArgument for TEXT that is
// not valid UTF-8.
Status append_element(const SqlValue& v, Bytes* out);

// Key layout of one table (see the file comment).
class TableLayout {
 public:
  // `subspace` is S (the row prefix is pack((S,))).
  static Result<TableLayout> make(const TableSchema& schema, std::string_view subspace);

  const TableSchema& schema() const { return schema_; }
  const Bytes& row_prefix() const { return row_prefix_; }
  const Bytes& index_prefix(size_t i) const { return index_prefixes_[i]; }
  // Maps an entry of index i to its row's key (core/key_mapping.h), for
  // index scans that read rows (OrderedStore::scan_mapped).
  const KeyMapping& index_to_row(size_t i) const { return index_to_row_[i]; }
  // The subspace changed (a rename moved the rows).
  Status rebind(std::string_view subspace);

  // Packed elements of one row, one per column (the implicit key is not a
  // column). Views into caller-owned bytes.
  using Elements = std::vector<BytesView>;

  // Appends the key element of column c holding packed element `e`: `e`,
  // or its collation key (TableColumn::keyed_by_collation()).
  void append_key_element(int c, BytesView e, Bytes* out) const;
  // The key elements of a row (after the row prefix) from its columns'
  // packed elements, replacing *out. Not for an implicit key.
  void make_key_elements(const Elements& row, Bytes* out) const;
  // Row key from the key columns' packed elements (or the packed rowid for
  // an implicit key), replacing *out.
  void row_key(const Elements& row, BytesView rowid_element, Bytes* out) const;
  // Stored value: the non-key columns' elements, then key_copies', concatenated.
  void row_value(const Elements& row, Bytes* out) const;
  // Entry of index i: prefix + indexed columns' key elements + key elements.
  void index_key(size_t i, const Elements& row, BytesView key_elements, Bytes* out) const;

  // Splits a stored row into per-column element views (into `key` and
  // `value`); *key_elements is the part of the key after the row prefix.
  // kCorruption when the bytes do not fit the schema.
  Status split_row(BytesView key, BytesView value, Elements* row, BytesView* key_elements) const;
  // One column of a row as read_row() found it.
  struct ColumnScalar {
    ScalarElement element;
    FramedAs as = FramedAs::kOther;  // kOther: decode (*row)[c] with TupleReader
  };
  using Scalars = std::vector<ColumnScalar>;
  // split_row for reading, the per-row step of every scan: the same split,
  // and each element that is a common scalar decoded on the way
  // (frame_element), so a row's bytes are looked at once.
  Status read_row(BytesView key, BytesView value, Elements* row, Scalars* scalars,
                  BytesView* key_elements) const;
  // The key elements of an index entry (after the indexed values), and the
  // indexed values' elements; with `key_parts`, also each key element (by
  // key position). These are key elements: for a column keyed by
  // collation, not its value. Like split_row, this checks the framing
  // only: elements are validated when decoded.
  Status split_index(size_t i, BytesView entry, Elements* indexed, BytesView* key_elements,
                     Elements* key_parts = nullptr) const;
  // read_row one column at a time, for scans that read few of a row's
  // columns: a row being read and how far each of its parts (the key
  // elements after the row prefix, and the value) has been framed.
  struct PartialRow {
    BytesView parts[2];          // [0] key elements, [1] value
    size_t framed[2] = {0, 0};   // elements framed so far
    size_t at[2] = {0, 0};       // and the bytes they take
  };
  // Begins reading a row, checking only that its key is in the table's
  // subspace; *key_elements as read_row gives it.
  Status start_row(BytesView key, BytesView value, PartialRow* p, BytesView* key_elements) const;
  // Frames and decodes the row's elements up to the one column c is stored
  // in (read_row() stores it in (*row)[c] and (*scalars)[c], and so does
  // this), and those before it in the same part into their columns. Once a
  // part's last element is framed, checks the part holds no more, with
  // read_row's message; the other part is not looked at.
  // REQUIRES: *row and *scalars have a place per column.
  Status read_column(int c, PartialRow* p, Elements* row, Scalars* scalars) const;
  // Frames the whole key part: what read_row checks of the key, including
  // that an implicit key is an int64.
  Status read_key(PartialRow* p, Elements* row, Scalars* scalars) const;

  // split_index for a scan that reads its columns from the entry alone:
  // the indexed values, then the key elements, framed and decoded into the
  // columns they belong to, as read_row() does for a row (a column in
  // both takes its key element; a column keyed by collation gets that
  // key, not its value). Columns the entry does not hold are left as they
  // were. The same errors as split_index.
  Status read_index_entry(size_t i, BytesView entry, Elements* row, Scalars* scalars,
                          BytesView* key_elements) const;

 private:
  TableSchema schema_;
  // index_to_row_ from the prefixes, after either changes.
  void map_indexes_to_rows();

  Bytes row_prefix_;
  std::vector<Bytes> index_prefixes_;
  std::vector<KeyMapping> index_to_row_;
  // The columns a stored value holds, in order: values, then key_copies.
  std::vector<int> value_columns_;
  // Per column: which part of a stored row read_row() takes it from (1:
  // the value, which holds a collated key column's own value; 0: the key)
  // and its place there. Per key element: the column it is read into, or
  // -1 where the value holds the column (or there is none, for an
  // implicit key).
  struct ColumnSource {
    uint8_t part = 0;
    uint32_t place = 0;
  };
  std::vector<ColumnSource> sources_;
  std::vector<int> key_targets_;
  bool every_key_element_read_ = false;  // no -1 in key_targets_
  void map_sources();
  // read_row's and read_index_entry's key elements into their columns (an
  // implicit key only checked), with the caller's messages for damage.
  Status read_key_elements(BytesView key_elements, Elements* row, Scalars* scalars, const char* wrong_count,
                           const char* not_int64) const;
  // PartialRow's framing of `part` through its element `place`.
  Status frame_through(size_t part, size_t place, PartialRow* p, Elements* row, Scalars* scalars) const;
};

// Rows and their index entries over a store: every write keeps the indexes
// in step, in one batch of store operations.
class TableRows {
 public:
  TableRows(OrderedStore* store, const TableLayout* layout) : store_(store), layout_(layout) {}

  // Writes a row and its index entries. `old` (when non-null) is the row
  // previously stored under `old_key`: its entries that differ are removed
  // and its key cleared if it differs from the new one.
  Status put(const TableLayout::Elements& row, BytesView key_elements,
             const TableLayout::Elements* old, BytesView old_key_elements);
  // Removes a row and its index entries.
  Status erase(const TableLayout::Elements& row, BytesView key_elements);

  // Verifies that every row has exactly its index entries and every entry
  // belongs to a row. *problem is empty when all is well, else the first
  // problem found, in words. `table` names the table in messages.
  Status check(std::string_view table, std::string* problem);
  // Rewrites every index from the rows: removes entries no row has, adds
  // missing ones. *changed counts entries written or removed. Fails with
  // a kUnique constraint error (naming `table`'s columns) where rows
  // repeat the values of a unique index, as SQLite's REINDEX does; the
  // caller undoes what was written.
  Status rebuild(std::string_view table, uint64_t* changed);

 private:
  OrderedStore* store_;
  const TableLayout* layout_;
  Bytes key_, old_entry_, new_entry_;
};

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_TABLE_H_
