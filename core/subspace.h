// Subspace: a key prefix made from a tuple, as in FoundationDB's bindings.
//
// Every virtual table owns one; its keys are prefix + pack(suffix tuple).
//
//   Subspace users = *Subspace::make({TupleValue::string("users")});
//   Bytes k = *users.pack({TupleValue::int64(7)});   // 02 users 00 15 07
//   users.contains(k);                                // true
//   users.range();                                    // [02 users 00 00, 02 users 00 FF)
#ifndef TUPLEKV_CORE_SUBSPACE_H_
#define TUPLEKV_CORE_SUBSPACE_H_

#include "core/bytes.h"
#include "core/status.h"
#include "core/tuple.h"

namespace tuplekv {

class Subspace {
 public:
  Subspace() = default;  // the empty prefix: the whole keyspace

  // prefix = raw_prefix + pack(t). Fails as pack() does.
  static Result<Subspace> make(const Tuple& t, BytesView raw_prefix = {});
  static Subspace from_raw(BytesView raw_prefix) { return Subspace(Bytes(raw_prefix)); }

  const Bytes& key() const { return prefix_; }

  // prefix + pack(t).
  Result<Bytes> pack(const Tuple& t) const;
  // Appends prefix + pack(t) to *out.
  Status pack_to(const Tuple& t, Bytes* out) const;

  // Decodes the part of `key` after the prefix. kInvalidArgument when `key`
  // does not start with the prefix, kCorruption when the rest does not decode.
  Status unpack(BytesView key, Tuple* out) const;

  // Every key that strictly extends prefix + pack(t): [p + 00, p + FF).
  KeyRange range(const Tuple& t = {}) const;

  bool contains(BytesView key) const {
    return key.size() >= prefix_.size() &&
           key.compare(0, prefix_.size(), prefix_) == 0;
  }

  // The subspace prefix + pack(t).
  Result<Subspace> sub(const Tuple& t) const;

 private:
  explicit Subspace(Bytes prefix) : prefix_(std::move(prefix)) {}
  Bytes prefix_;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_SUBSPACE_H_
