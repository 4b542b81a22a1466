// Multimaps (see multimap.h for the layout).
#include "core/model/multimap.h"

#include <algorithm>

#include "core/model/sql_any.h"

namespace tuplekv::model {

namespace {

const Bytes kEmpty;

// Up to three elements of `stored` after its first `start` bytes (the
// prefix), and how many there are. A key that does not decode is named.
Status elements(BytesView stored, size_t start, BytesView out[3], int* n) {
  TupleReader r(stored, start);
  *n = 0;
  while (r.next()) {
    if (*n < 3) out[*n] = r.raw();
    ++*n;
  }
  if (!r.status().ok()) return r.status().with_context("multimap: key " + blob_literal(stored));
  return Status::OK();
}

}  // namespace

Result<MultimapKeys> MultimapKeys::make(BytesView prefix, bool reverse) {
  MultimapKeys k;
  k.reverse_ = reverse;
  k.prefix_.assign(prefix);
  k.reverse_prefix_ = k.prefix_;
  TUPLEKV_RETURN_IF_ERROR(pack({TupleValue::string("reverse")}, &k.reverse_prefix_));
  return k;
}

void MultimapKeys::pair_key(BytesView key, BytesView value, Bytes* out) const {
  out->assign(prefix_);
  out->append(key);
  out->append(value);
}

void MultimapKeys::reverse_key(BytesView key, BytesView value, Bytes* out) const {
  out->assign(reverse_prefix_);
  out->append(value);
  out->append(key);
}

Status MultimapKeys::pair_key(const TupleValue& key, const TupleValue& value, Bytes* out) const {
  out->assign(prefix_);
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, out));
  return pack_element(value, out);
}

Status MultimapKeys::split_pair(BytesView stored, BytesView* key, BytesView* value,
                                bool* is_entry) const {
  if (!has_prefix(stored, prefix_)) {
    return Status::Corruption("multimap: key " + blob_literal(stored) + " is outside its subspace");
  }
  BytesView e[3];
  int n = 0;
  TUPLEKV_RETURN_IF_ERROR(elements(stored, prefix_.size(), e, &n));
  *is_entry = n == 2;
  if (n == 2) {
    *key = e[0];
    *value = e[1];
    return Status::OK();
  }
  // A reverse entry is ('reverse', v, k); anything else is damage.
  if (reverse_ && n == 3 && stored.compare(0, reverse_prefix_.size(), reverse_prefix_) == 0) {
    return Status::OK();
  }
  return Status::Corruption("multimap: key " + blob_literal(stored) +
                            " is not a (key, value) pair");
}

Status MultimapKeys::split_reverse(BytesView stored, BytesView* key, BytesView* value,
                                   bool* is_entry) const {
  if (stored.size() < reverse_prefix_.size() ||
      stored.compare(0, reverse_prefix_.size(), reverse_prefix_) != 0) {
    return Status::Corruption("multimap: key " + blob_literal(stored) +
                              " is outside the reverse entries");
  }
  BytesView e[3];
  int n = 0;
  TUPLEKV_RETURN_IF_ERROR(elements(stored, reverse_prefix_.size(), e, &n));
  *is_entry = n == 2;
  if (n == 2) {
    *value = e[0];
    *key = e[1];
    return Status::OK();
  }
  // A pair ('reverse', v) is one element after the reverse prefix.
  if (n == 1) return Status::OK();
  return Status::Corruption("multimap: key " + blob_literal(stored) + " is not a reverse entry");
}

Status Multimap::add_packed(BytesView key, BytesView value) {
  keys_.pair_key(key, value, &key_);
  TUPLEKV_RETURN_IF_ERROR(store_->set(key_, kEmpty));
  if (!keys_.reverse()) return Status::OK();
  keys_.reverse_key(key, value, &key_);
  return store_->set(key_, kEmpty);
}

Status Multimap::remove_packed(BytesView key, BytesView value) {
  keys_.pair_key(key, value, &key_);
  TUPLEKV_RETURN_IF_ERROR(store_->clear(key_));
  if (!keys_.reverse()) return Status::OK();
  keys_.reverse_key(key, value, &key_);
  return store_->clear(key_);
}

Status Multimap::add(const TupleValue& key, const TupleValue& value, bool* added) {
  bool found = false;
  TUPLEKV_RETURN_IF_ERROR(contains(key, value, &found));
  *added = !found;
  if (found) return Status::OK();
  Bytes k, v;
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, &k));
  TUPLEKV_RETURN_IF_ERROR(pack_element(value, &v));
  return add_packed(k, v);
}

Status Multimap::remove(const TupleValue& key, const TupleValue& value) {
  Bytes k, v;
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, &k));
  TUPLEKV_RETURN_IF_ERROR(pack_element(value, &v));
  return remove_packed(k, v);
}

Status Multimap::contains(const TupleValue& key, const TupleValue& value, bool* found) {
  TUPLEKV_RETURN_IF_ERROR(keys_.pair_key(key, value, &key_));
  Bytes ignored;
  return store_->get(key_, &ignored, found);
}

Status Multimap::find_sql_equal(BytesView key, BytesView value, bool* found, Bytes* found_key,
                                Bytes* found_value) {
  std::vector<Bytes> ks, vs;
  TUPLEKV_RETURN_IF_ERROR(sql_equal_variants_packed(key, &ks));
  TUPLEKV_RETURN_IF_ERROR(sql_equal_variants_packed(value, &vs));
  Bytes ignored;
  *found = false;
  for (const Bytes& k : ks) {
    for (const Bytes& v : vs) {
      keys_.pair_key(k, v, &key_);
      TUPLEKV_RETURN_IF_ERROR(store_->get(key_, &ignored, found));
      if (*found) {
        found_key->assign(k);
        found_value->assign(v);
        return Status::OK();
      }
    }
  }
  return Status::OK();
}

Status Multimap::values(const TupleValue& key, std::vector<TupleValue>* out) {
  out->clear();
  Bytes p = keys_.prefix();
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, &p));
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                           store_->scan(tuplekv::range(p), ScanOptions{false, 0, true}));
  for (; c->valid(); c->next()) {
    BytesView k, v;
    bool is_pair = false;
    TUPLEKV_RETURN_IF_ERROR(keys_.split_pair(c->key(), &k, &v, &is_pair));
    if (!is_pair) continue;
    TUPLEKV_RETURN_IF_ERROR(decode_element(&v, &out->emplace_back()));
  }
  return c->status();
}

Status Multimap::count(const TupleValue& key, uint64_t* n) {
  *n = 0;
  Bytes p = keys_.prefix();
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, &p));
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                           store_->scan(tuplekv::range(p), ScanOptions{false, 0, true}));
  for (; c->valid(); c->next()) {
    BytesView k, v;
    bool is_pair = false;
    TUPLEKV_RETURN_IF_ERROR(keys_.split_pair(c->key(), &k, &v, &is_pair));
    if (is_pair) ++*n;
  }
  return c->status();
}

Status Multimap::keys_of(const TupleValue& value, std::vector<TupleValue>* out) {
  out->clear();
  Bytes packed_value;
  TUPLEKV_RETURN_IF_ERROR(pack_element(value, &packed_value));
  const bool rev = keys_.reverse();
  const KeyRange range = tuplekv::range(rev ? keys_.reverse_prefix() + packed_value : keys_.prefix());
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions{false, 0, true}));
  for (; c->valid(); c->next()) {
    BytesView k, v;
    bool is_entry = false;
    TUPLEKV_RETURN_IF_ERROR(rev ? keys_.split_reverse(c->key(), &k, &v, &is_entry)
                                : keys_.split_pair(c->key(), &k, &v, &is_entry));
    if (!is_entry || v != packed_value) continue;
    TUPLEKV_RETURN_IF_ERROR(decode_element(&k, &out->emplace_back()));
  }
  TUPLEKV_RETURN_IF_ERROR(c->status());
  if (!rev) {
    std::sort(out->begin(), out->end(),
              [](const TupleValue& a, const TupleValue& b) { return compare(a, b) < 0; });
  }
  return Status::OK();
}

Status Multimap::remove_key(const TupleValue& key) {
  Bytes p = keys_.prefix();
  TUPLEKV_RETURN_IF_ERROR(pack_element(key, &p));
  const KeyRange range = tuplekv::range(p);
  if (keys_.reverse()) {
    std::vector<Bytes> rev;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions{false, 0, true}));
    for (; c->valid(); c->next()) {
      BytesView k, v;
      bool is_pair = false;
      TUPLEKV_RETURN_IF_ERROR(keys_.split_pair(c->key(), &k, &v, &is_pair));
      if (is_pair) keys_.reverse_key(k, v, &rev.emplace_back());
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    for (const Bytes& k : rev) TUPLEKV_RETURN_IF_ERROR(store_->clear(k));
  }
  if (key.type() == ElementType::kString && key.as_string() == "reverse" && keys_.reverse()) {
    // The pairs of key 'reverse' share their range with the reverse
    // entries: clear them one by one.
    std::vector<Bytes> pairs;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions{false, 0, true}));
    for (; c->valid(); c->next()) {
      BytesView k, v;
      bool is_pair = false;
      TUPLEKV_RETURN_IF_ERROR(keys_.split_pair(c->key(), &k, &v, &is_pair));
      if (is_pair) pairs.emplace_back(c->key());
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    for (const Bytes& k : pairs) TUPLEKV_RETURN_IF_ERROR(store_->clear(k));
    return Status::OK();
  }
  return store_->clear_range(range.begin, range.end);
}

}  // namespace tuplekv::model
