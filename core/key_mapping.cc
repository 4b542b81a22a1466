#include "core/key_mapping.h"

#include <utility>

#include "core/store.h"
#include "core/tuple.h"

namespace tuplekv {

bool mapped_suffix(BytesView key, size_t from_prefix, size_t skip, BytesView* suffix) {
  if (key.size() < from_prefix) return false;
  BytesView rest = key.substr(from_prefix);
  for (size_t i = 0; i < skip; ++i) {
    size_t size = quick_element_size(rest);
    if (size == 0 && !element_size(rest, &size).ok()) return false;
    rest.remove_prefix(size);
  }
  *suffix = rest;
  return true;
}

bool map_key(const KeyMapping& mapping, BytesView key, Bytes* out) {
  BytesView rest;
  if (!mapped_suffix(key, mapping.from_prefix, mapping.skip, &rest)) return false;
  out->assign(mapping.to_prefix);
  out->append(rest);
  return true;
}

namespace {

class MappedByGetCursor final : public Cursor {
 public:
  MappedByGetCursor(OrderedStore* store, std::unique_ptr<Cursor> keys, KeyMapping mapping)
      : store_(store), keys_(std::move(keys)), mapping_(std::move(mapping)) {
    load();
  }

  bool valid() const override { return status_.ok() && keys_->valid(); }
  void next() override {
    keys_->next();
    load();
  }
  BytesView key() const override { return keys_->key(); }
  BytesView value() const override { return value_; }
  bool mapped_found() const override { return found_; }
  Status status() const override { return status_.ok() ? keys_->status() : status_; }
  Status rescan(const KeyRange& range) override {
    status_ = keys_->rescan(range);
    if (status_.ok()) load();
    return status();
  }

 private:
  // Reads the mapped value of the key the scan is on.
  void load() {
    found_ = false;
    value_.clear();
    if (!keys_->valid()) return;
    if (!map_key(mapping_, keys_->key(), &mapped_key_)) return;
    status_ = store_->get(mapped_key_, &value_, &found_);
  }

  OrderedStore* store_;
  std::unique_ptr<Cursor> keys_;
  const KeyMapping mapping_;
  Bytes mapped_key_;
  Bytes value_;
  bool found_ = false;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<Cursor>> scan_mapped_by_get(OrderedStore* store, const KeyRange& range,
                                                   const ScanOptions& options,
                                                   const KeyMapping& mapping) {
  ScanOptions keys_options = options;
  keys_options.keys_only = true;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> keys, store->scan(range, keys_options));
  return std::unique_ptr<Cursor>(
      std::make_unique<MappedByGetCursor>(store, std::move(keys), mapping));
}

}  // namespace tuplekv
