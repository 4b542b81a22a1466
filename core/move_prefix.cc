#include "core/move_prefix.h"

#include <memory>
#include <string>

#include "core/tuple.h"

namespace tuplekv {

Status move_prefix(OrderedStore* store, BytesView from, BytesView to, size_t max_key) {
  TUPLEKV_ASSIGN_OR_RETURN(Bytes end, strinc(from));
  const KeyRange old_range{Bytes(from), std::move(end)};
  {
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store->scan(old_range, ScanOptions()));
    Bytes key;
    for (; c->valid(); c->next()) {
      key.assign(to);
      key.append(c->key().substr(from.size()));
      if (max_key != 0 && key.size() > max_key) {
        return Status::TooBig("a key would be " + std::to_string(key.size()) +
                              " bytes with the new prefix");
      }
      TUPLEKV_RETURN_IF_ERROR(store->set(key, c->value()));
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
  }
  return store->clear_range(old_range.begin, old_range.end);
}

}  // namespace tuplekv
