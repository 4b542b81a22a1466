#include "core/move_prefix.h"

#include <memory>

#include "core/tuple.h"

namespace tuplekv {

Status move_prefix(OrderedStore* store, BytesView from, BytesView to) {
  TUPLEKV_ASSIGN_OR_RETURN(Bytes end, strinc(from));
  const KeyRange old_range{Bytes(from), std::move(end)};
  {
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store->scan(old_range, ScanOptions()));
    Bytes key;
    for (; c->valid(); c->next()) {
      key.assign(to);
      key.append(c->key().substr(from.size()));
      TUPLEKV_RETURN_IF_ERROR(store->set(key, c->value()));
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
  }
  return store->clear_range(old_range.begin, old_range.end);
}

}  // namespace tuplekv
