// Fuzz target for the readers of tuplekv_table's stored rows and index
// entries (core/model/table.h): the bytes a shadow table hands back, which
// anyone with write access to the database file may have changed.
//
// The per-row readers are hand-framed for speed (frame_element, memchr,
// lazy UTF-8 checks), so each is checked against a plainer reader of the
// same bytes, not only for crashes:
//   - read_row() agrees with split_row(): both succeed or fail with the
//     same message, and give the same element views and key elements;
//   - every column read_row() decoded as a scalar holds what the full
//     decoder (unpack) makes of its element (text: once its UTF-8 is
//     checked), and a column it left undecoded is one the fast path's
//     rules (decode_scalar_element) refuse;
//   - reading the row a column at a time (start_row, read_column in an
//     order taken from the input, then read_key) succeeds exactly when
//     read_row() does, and gives the same columns (except that a value
//     holding no column is never looked at that way);
//   - read_index_entry() agrees with split_index() in the same way, and
//     puts each key element into its key column.
//
// Input: byte 0 picks a schema (kSchemas below), byte 1 holds flags (bit 0:
// put the row prefix before the key; bit 1: put the index's prefix before
// the entry; bit 2: read columns last to first; bits 3-5: which index),
// bytes 2 and 3 the key's and the value's lengths (cut to what is left);
// the key, the value, and the index entry follow.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/table.h"
#include "core/tuple.h"
#include "core/tuple_frame.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using tuplekv::Bytes;
using tuplekv::BytesView;
using tuplekv::ElementType;
using tuplekv::FramedAs;
using tuplekv::ScalarElement;
using tuplekv::Status;
using tuplekv::StatusCode;
using tuplekv::model::TableLayout;
using tuplekv::model::TableSchema;

// Shapes that take different paths through the readers: an integer key
// with values, an implicit key over ANY columns, a composite key with a
// NOCASE column (whose value the row stores again, after the values), a
// DESC key and an automatic unique index, a BLOB key with an RTRIM index,
// and a table that is all key.
const std::vector<std::vector<std::string>> kSchemas = {
    {"id INTEGER", "name TEXT", "score REAL", "PRIMARY KEY(id)", "INDEX by_name(name)"},
    {"a", "b", "c BLOB", "INDEX by_bc(b, c)"},
    {"g INTEGER", "j TEXT COLLATE NOCASE", "v ANY", "PRIMARY KEY(g, j)", "INDEX by_v(v)",
     "INDEX by_j(j, v)"},
    {"x TEXT", "y INTEGER", "z REAL", "PRIMARY KEY(y DESC, x)", "UNIQUE(z)"},
    {"k BLOB PRIMARY KEY", "t TEXT COLLATE RTRIM", "INDEX by_t(t, k)"},
    {"only INTEGER PRIMARY KEY"},
};

struct Table {
  TableSchema schema;
  TableLayout layout;
};

const std::vector<Table>& tables() {
  static const std::vector<Table> made = [] {
    std::vector<Table> out;
    for (const std::vector<std::string>& args : kSchemas) {
      TableSchema schema;
      FUZZ_CHECK(tuplekv::model::parse_table_schema("tuplekv_table", "t", args, &schema).ok());
      auto layout = TableLayout::make(schema, "t");
      FUZZ_CHECK(layout.ok());
      out.push_back(Table{schema, std::move(layout).value()});
    }
    return out;
  }();
  return made;
}

bool same_view(BytesView a, BytesView b) { return a.data() == b.data() && a.size() == b.size(); }

// What the full decoder makes of `element` (one element, or none when it
// refuses), against the scalar a reader decoded on the fast path.
bool same_as_decoded(BytesView element, const ScalarElement& e) {
  tuplekv::Tuple t;
  if (!tuplekv::unpack(element, &t).ok() || t.size() != 1) return false;
  const tuplekv::TupleValue& v = t[0];
  if (v.type() != e.type) return false;
  switch (e.type) {
    case ElementType::kInt:
      return v.as_int64() == e.int_value;
    case ElementType::kDouble:
      return v.float64_bits() == e.double_bits;
    case ElementType::kString:
    case ElementType::kBytes:
      return v.as_bytes() == e.payload;
    default:
      return true;  // null
  }
}

// Column c as a reader left it. decode_scalar_element() shares the fast
// path's rules, so it only says the reader applied them; the values come
// from the full decoder.
void check_scalar(BytesView element, const TableLayout::ColumnScalar& s) {
  ScalarElement plain;
  const bool decodes = tuplekv::decode_scalar_element(element, &plain);
  switch (s.as) {
    case FramedAs::kScalar:
      FUZZ_CHECK(decodes);
      FUZZ_CHECK(same_as_decoded(element, s.element));
      break;
    case FramedAs::kUncheckedText:
      FUZZ_CHECK(s.element.type == ElementType::kString);
      FUZZ_CHECK(decodes == tuplekv::scalar_text_is_valid(s.element));
      // Text that is not UTF-8 the full decoder refuses.
      FUZZ_CHECK(same_as_decoded(element, s.element) == decodes);
      break;
    case FramedAs::kOther:
      // Not a common scalar, or not canonically encoded: read another way.
      FUZZ_CHECK(!decodes);
      break;
  }
}

void check_row(const Table& t, BytesView key, BytesView value, bool backwards) {
  const size_t ncols = t.schema.columns.size();
  TableLayout::Elements split(ncols), read(ncols);
  BytesView split_key, read_key;
  const Status s = t.layout.split_row(key, value, &split, &split_key);
  TableLayout::Scalars scalars;
  const Status r = t.layout.read_row(key, value, &read, &scalars, &read_key);
  FUZZ_CHECK(s.ok() || s.code() == StatusCode::kCorruption);
  FUZZ_CHECK(s.ok() == r.ok());
  FUZZ_CHECK(s.message() == r.message());
  if (r.ok()) {
    FUZZ_CHECK(same_view(split_key, read_key));
    FUZZ_CHECK(read.size() == ncols && scalars.size() == ncols);
    for (size_t c = 0; c < ncols; ++c) {
      FUZZ_CHECK(same_view(split[c], read[c]));
      check_scalar(read[c], scalars[c]);
    }
  }

  // A column at a time, then the key part whole.
  TableLayout::Elements part(ncols);
  TableLayout::Scalars part_scalars(ncols);
  TableLayout::PartialRow p;
  BytesView part_key;
  Status q = t.layout.start_row(key, value, &p, &part_key);
  for (size_t k = 0; q.ok() && k < ncols; ++k) {
    const int c = static_cast<int>(backwards ? ncols - 1 - k : k);
    q = t.layout.read_column(c, &p, &part, &part_scalars);
  }
  if (q.ok()) q = t.layout.read_key(&p, &part, &part_scalars);
  if (q.ok() && !r.ok() && t.schema.values.empty() && t.schema.key_copies.empty()) {
    // A value that holds no column is never framed a column at a time
    // (read_column looks at a part only as far as the column it reads), so
    // bytes there are damage only read_row() sees. Nothing else may be.
    FUZZ_CHECK(!value.empty());
    TableLayout::Scalars unused;
    FUZZ_CHECK(t.layout.read_row(key, BytesView(), &read, &unused, &read_key).ok());
    return;
  }
  FUZZ_CHECK(q.ok() == r.ok());
  if (!q.ok()) {
    FUZZ_CHECK(q.code() == StatusCode::kCorruption);
    return;
  }
  FUZZ_CHECK(same_view(part_key, read_key));
  for (size_t c = 0; c < ncols; ++c) {
    FUZZ_CHECK(same_view(part[c], read[c]));
    check_scalar(part[c], part_scalars[c]);
  }
}

void check_index_entry(const Table& t, size_t i, BytesView entry) {
  const size_t ncols = t.schema.columns.size();
  TableLayout::Elements indexed, key_parts;
  BytesView split_key;
  const Status s = t.layout.split_index(i, entry, &indexed, &split_key, &key_parts);
  TableLayout::Elements read(ncols);
  TableLayout::Scalars scalars(ncols);
  BytesView read_key;
  const Status r = t.layout.read_index_entry(i, entry, &read, &scalars, &read_key);
  FUZZ_CHECK(s.ok() || s.code() == StatusCode::kCorruption);
  FUZZ_CHECK(s.ok() == r.ok());
  if (!r.ok()) return;
  FUZZ_CHECK(same_view(split_key, read_key));
  const std::vector<int>& columns = t.schema.indexes[i].columns;
  FUZZ_CHECK(indexed.size() == columns.size());
  for (size_t k = 0; k < columns.size(); ++k) {
    const auto c = static_cast<size_t>(columns[k]);
    // A key column the index also holds takes its key element.
    if (t.schema.columns[c].key_pos < 0) FUZZ_CHECK(same_view(indexed[k], read[c]));
    check_scalar(read[c], scalars[c]);
  }
  for (size_t k = 0; k < t.schema.key.size(); ++k) {
    const auto c = static_cast<size_t>(t.schema.key[k]);
    FUZZ_CHECK(k < key_parts.size());
    FUZZ_CHECK(same_view(key_parts[k], read[c]));
    check_scalar(read[c], scalars[c]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const Table& t = tables()[data[0] % tables().size()];
  const uint8_t flags = data[1];
  BytesView rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  const BytesView key_bytes = rest.substr(0, data[2]);
  rest.remove_prefix(key_bytes.size());
  const BytesView value = rest.substr(0, data[3]);
  rest.remove_prefix(value.size());

  // Each part in a buffer of exactly its size, so a read past it is caught.
  Bytes key;
  if ((flags & 1) != 0) key.assign(t.layout.row_prefix());
  key.append(key_bytes);
  const std::vector<char> key_buf(key.begin(), key.end());
  const std::vector<char> value_buf(value.begin(), value.end());
  check_row(t, BytesView(key_buf.data(), key_buf.size()), BytesView(value_buf.data(), value_buf.size()),
            (flags & 4) != 0);

  if (t.schema.indexes.empty()) return 0;
  const size_t i = ((flags >> 3) & 7) % t.schema.indexes.size();
  Bytes entry;
  if ((flags & 2) != 0) entry.assign(t.layout.index_prefix(i));
  entry.append(rest);
  const std::vector<char> entry_buf(entry.begin(), entry.end());
  check_index_entry(t, i, BytesView(entry_buf.data(), entry_buf.size()));
  return 0;
}
