// Subspace: FoundationDB's key prefix helper over the tuple codec.
//
// range(t) has no Status to report a tuple that does not pack (invalid
// UTF-8, an incomplete versionstamp, ...); it then returns the empty range
// [prefix + FF, prefix + FF), so a scan over it finds nothing rather than
// something unrelated. (Not [prefix, prefix): with an empty prefix that would
// read as an unbounded range.)
#include "core/subspace.h"

namespace tuplekv {

Result<Subspace> Subspace::make(const Tuple& t, BytesView raw_prefix) {
  Bytes prefix(raw_prefix);
  TUPLEKV_RETURN_IF_ERROR(tuplekv::pack(t, &prefix));
  return Subspace(std::move(prefix));
}

Result<Bytes> Subspace::pack(const Tuple& t) const {
  Bytes out;
  TUPLEKV_RETURN_IF_ERROR(pack_to(t, &out));
  return out;
}

Status Subspace::pack_to(const Tuple& t, Bytes* out) const {
  const size_t start = out->size();
  out->append(prefix_);
  Status s = tuplekv::pack(t, out);
  if (!s.ok()) out->resize(start);
  return s;
}

Status Subspace::unpack(BytesView key, Tuple* out) const {
  if (!contains(key)) {
    return Status::InvalidArgument("subspace: key " + to_hex(key) +
                                   " does not start with the subspace prefix " +
                                   to_hex(prefix_));
  }
  // Decode element by element so error offsets count from the start of the
  // whole key, which is what a person looking at the stored bytes sees.
  out->clear();
  BytesView rest = key.substr(prefix_.size());
  while (!rest.empty()) {
    const size_t offset = key.size() - rest.size();
    TUPLEKV_RETURN_IF_ERROR(decode_element(&rest, &out->emplace_back(), offset));
  }
  return Status::OK();
}

KeyRange Subspace::range(const Tuple& t) const {
  Bytes p = prefix_;
  if (!tuplekv::pack(t, &p).ok()) {
    Bytes nothing = prefix_ + '\xff';
    return KeyRange{nothing, nothing};
  }
  return tuplekv::range(p);
}

Result<Subspace> Subspace::sub(const Tuple& t) const {
  Bytes p = prefix_;
  TUPLEKV_RETURN_IF_ERROR(tuplekv::pack(t, &p));
  return Subspace(std::move(p));
}

}  // namespace tuplekv
