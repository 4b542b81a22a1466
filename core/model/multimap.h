// Multimaps: one key, many values, each pair one key with an empty value
// (FoundationDB data-modeling guide, "multimaps"; DESIGN.md §4).
//
//   pair (k, v)                  pack((S, k, v))             ''
//   with reverse=1, also         pack((S, 'reverse', v, k))  ''
//
// All values of k are one prefix range, membership one point lookup, and
// counting a key's values reads keys only. The reverse entries make "every
// key holding v" a prefix range too. They share the subspace with the
// pairs, so a pair whose key is the string 'reverse' sits in the same
// range as the reverse entries; the two are told apart by their length
// (two elements after S for a pair, three for a reverse entry) and every
// scan skips what is not its kind.
//
// Thread safety: none.
#ifndef TUPLEKV_CORE_MODEL_MULTIMAP_H_
#define TUPLEKV_CORE_MODEL_MULTIMAP_H_

#include <vector>

#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"
#include "core/tuple.h"

namespace tuplekv::model {

class MultimapKeys {
 public:
  // `prefix` is the subspace prefix, pack((S,)).
  static Result<MultimapKeys> make(BytesView prefix, bool reverse);

  bool reverse() const { return reverse_; }
  const Bytes& prefix() const { return prefix_; }
  // S + pack(('reverse',)).
  const Bytes& reverse_prefix() const { return reverse_prefix_; }

  // From packed elements (one element each); replace *out.
  void pair_key(BytesView key, BytesView value, Bytes* out) const;
  void reverse_key(BytesView key, BytesView value, Bytes* out) const;
  Status pair_key(const TupleValue& key, const TupleValue& value, Bytes* out) const;

  // Splits a stored key found by a scan of the pairs (prefix S) or of the
  // reverse entries (prefix S + 'reverse') into packed key and value
  // elements. *is_entry is false, and OK returned, for a key of the other
  // kind (see the file comment). kCorruption for anything undecodable.
  Status split_pair(BytesView stored, BytesView* key, BytesView* value, bool* is_entry) const;
  Status split_reverse(BytesView stored, BytesView* key, BytesView* value, bool* is_entry) const;

 private:
  bool reverse_ = false;
  Bytes prefix_;
  Bytes reverse_prefix_;
};

class Multimap {
 public:
  Multimap(OrderedStore* store, MultimapKeys keys) : store_(store), keys_(std::move(keys)) {}
  const MultimapKeys& keys() const { return keys_; }

  // Adds (key, value); *added is false when the pair was there already.
  Status add(const TupleValue& key, const TupleValue& value, bool* added);
  Status remove(const TupleValue& key, const TupleValue& value);
  Status contains(const TupleValue& key, const TupleValue& value, bool* found);
  // The same on packed elements.
  Status add_packed(BytesView key, BytesView value);
  Status remove_packed(BytesView key, BytesView value);

  // The stored pair SQLite would call equal to (key, value) (sql_any.h).
  Status find_sql_equal(BytesView key, BytesView value, bool* found, Bytes* found_key,
                        Bytes* found_value);

  // Every value of `key`, in tuple order (one prefix scan).
  Status values(const TupleValue& key, std::vector<TupleValue>* out);
  // How many values `key` has, reading keys only.
  Status count(const TupleValue& key, uint64_t* n);
  // Every key holding `value`: a prefix scan of the reverse entries with
  // reverse=1, otherwise a scan of every pair.
  Status keys_of(const TupleValue& value, std::vector<TupleValue>* out);
  // Removes every value of `key` (one clear_range, plus the reverse entries).
  Status remove_key(const TupleValue& key);

 private:
  OrderedStore* store_;
  MultimapKeys keys_;
  Bytes key_;
};

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_MULTIMAP_H_
