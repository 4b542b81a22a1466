#include "core/spec_scan.h"

#include "core/tuple.h"

namespace tuplekv {

namespace {

// Every key under a packed-tuple prefix is below prefix + FF: the byte
// after a whole element is the next element's type code, never FF.
constexpr char kAfterElements = '\xff';

}  // namespace

Status SpecScan::start(OrderedStore* store, BytesView prefix, const ScanSpec* spec, bool keys_only,
                       const KeyMapping* mapping) {
  ScanOptions options;
  options.reverse = spec->reverse;
  options.keys_only = keys_only;
  const bool mapped = mapping != nullptr;
  if (store != store_ || options.reverse != options_.reverse ||
      options.keys_only != options_.keys_only || mapped != mapped_ ||
      (mapped && !(*mapping == mapping_))) {
    probe_.reset();
    scan_.reset();
    pass_.reset();
    mapped_ = mapped;
    if (mapped) mapping_ = *mapping;
  }
  store_ = store;
  spec_ = spec;
  options_ = options;
  range_ = 0;
  valid_ = false;
  if (!spec->skip) return open_range();
  prefix_.assign(prefix);
  if (spec->filter) {
    range_buf_.begin.assign(prefix_);
    range_buf_.end.assign(prefix_);
    range_buf_.end.push_back(kAfterElements);
    ++seeks_;
    if (spec->size() == 0) return Status::OK();
    if (pass_ == nullptr) {
      // Mapped: keys only, each kept one looked up (next_kept).
      ScanOptions pass = options_;
      pass.keys_only = options_.keys_only || mapped_;
      TUPLEKV_ASSIGN_OR_RETURN(pass_, store_->scan(range_buf_, pass));
    } else {
      TUPLEKV_RETURN_IF_ERROR(pass_->rescan(range_buf_));
    }
    return next_kept();
  }
  bound_.assign(prefix_);
  if (options_.reverse) bound_.push_back(kAfterElements);
  return next_group();
}

Status SpecScan::next_range() {
  if (!valid_) return Status::OK();
  if (spec_->filter) {
    pass_->next();
    return next_kept();
  }
  if (!on_point_) TUPLEKV_RETURN_IF_ERROR(scan_->status());
  ++range_;
  TUPLEKV_RETURN_IF_ERROR(open_range());
  if (valid_ || !spec_->skip) return Status::OK();
  return next_group();
}

Status SpecScan::next_group() {
  for (;;) {
    valid_ = false;
    if (spec_->size() == 0) return Status::OK();
    range_buf_.begin.assign(options_.reverse ? prefix_ : bound_);
    if (options_.reverse) {
      range_buf_.end.assign(bound_);
    } else {
      range_buf_.end.assign(prefix_);
      range_buf_.end.push_back(kAfterElements);
    }
    if (range_buf_.empty()) return Status::OK();
    ScanOptions probe_options;
    probe_options.reverse = options_.reverse;
    probe_options.keys_only = true;
    ++seeks_;
    if (probe_ == nullptr) {
      TUPLEKV_ASSIGN_OR_RETURN(probe_, store_->scan(range_buf_, probe_options));
    } else {
      TUPLEKV_RETURN_IF_ERROR(probe_->rescan(range_buf_));
    }
    if (!probe_->valid()) return probe_->status();
    const BytesView key = probe_->key();
    size_t size = 0;
    TUPLEKV_RETURN_IF_ERROR(element_size(key.substr(prefix_.size()), &size));
    group_.assign(key.substr(0, prefix_.size() + size));
    bound_.assign(group_);
    if (!options_.reverse) bound_.push_back(kAfterElements);
    range_ = 0;
    TUPLEKV_RETURN_IF_ERROR(open_range());
    if (valid_) return Status::OK();
  }
}

bool SpecScan::kept(BytesView rest) const {
  // The ranges are in key order and apart: the last one starting at or
  // before `rest` is the only one that can hold it.
  size_t lo = 0;
  size_t hi = spec_->size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (compare_bytes((*spec_)[mid].begin, rest) <= 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return false;
  const KeyRange& r = (*spec_)[lo - 1];
  if (spec_->point) return rest == BytesView(r.begin);
  return r.end.empty() || compare_bytes(rest, r.end) < 0;
}

Status SpecScan::next_kept() {
  valid_ = false;
  for (; pass_->valid(); pass_->next()) {
    const BytesView key = pass_->key();
    size_t size = 0;
    TUPLEKV_RETURN_IF_ERROR(element_size(key.substr(prefix_.size()), &size));
    if (!kept(key.substr(prefix_.size() + size))) continue;
    point_key_.assign(key);
    point_found_ = true;
    if (mapped_) {
      point_value_.clear();
      point_found_ = map_key(mapping_, key, &point_mapped_key_);
      ++seeks_;
      if (point_found_) {
        TUPLEKV_RETURN_IF_ERROR(store_->get(point_mapped_key_, &point_value_, &point_found_));
      }
    } else {
      point_value_.assign(pass_->value());
    }
    on_point_ = true;
    valid_ = true;
    return Status::OK();
  }
  return pass_->status();
}

void SpecScan::group_range(size_t i, KeyRange* out) const {
  const KeyRange& r = (*spec_)[i];
  out->begin.assign(group_);
  out->begin.append(r.begin);
  out->end.assign(group_);
  if (r.end.empty()) out->end.push_back(kAfterElements);
  else out->end.append(r.end);
}

Status SpecScan::open_range() {
  const size_t n = spec_->size();
  for (; range_ < n; ++range_) {
    const size_t i = spec_->reverse ? n - 1 - range_ : range_;
    if (spec_->skip) group_range(i, &range_buf_);
    const KeyRange& r = spec_->skip ? range_buf_ : (*spec_)[i];
    ++seeks_;
    if (spec_->point) {
      bool found = false;
      TUPLEKV_RETURN_IF_ERROR(store_->get(r.begin, &point_value_, &found));
      if (!found) continue;
      point_found_ = true;
      if (mapped_) {
        point_value_.clear();
        point_found_ = map_key(mapping_, r.begin, &point_mapped_key_);
        if (point_found_) {
          TUPLEKV_RETURN_IF_ERROR(store_->get(point_mapped_key_, &point_value_, &point_found_));
        }
      }
      point_key_.assign(r.begin);
      on_point_ = true;
      valid_ = true;
      return Status::OK();
    }
    if (scan_ == nullptr) {
      TUPLEKV_ASSIGN_OR_RETURN(scan_, mapped_ ? store_->scan_mapped(r, options_, mapping_)
                                              : store_->scan(r, options_));
    } else {
      TUPLEKV_RETURN_IF_ERROR(scan_->rescan(r));
    }
    if (scan_->valid()) {
      on_point_ = false;
      valid_ = true;
      return Status::OK();
    }
    TUPLEKV_RETURN_IF_ERROR(scan_->status());
  }
  valid_ = false;
  return Status::OK();
}

Status count_leading_elements(OrderedStore* store, BytesView prefix, size_t limit, size_t* count) {
  *count = 0;
  KeyRange keys = range(prefix);
  ScanOptions options;
  options.keys_only = true;
  std::unique_ptr<Cursor> cursor;
  while (*count <= limit) {
    if (cursor == nullptr) {
      TUPLEKV_ASSIGN_OR_RETURN(cursor, store->scan(keys, options));
    } else {
      TUPLEKV_RETURN_IF_ERROR(cursor->rescan(keys));
    }
    if (!cursor->valid()) return cursor->status();
    ++*count;
    const BytesView key = cursor->key();
    size_t size = 0;
    TUPLEKV_RETURN_IF_ERROR(element_size(key.substr(prefix.size()), &size));
    Bytes next(key.substr(0, prefix.size() + size));
    next.push_back(kAfterElements);
    keys.begin.swap(next);
  }
  return Status::OK();
}

Status count_keys(OrderedStore* store, BytesView prefix, size_t limit, size_t* count) {
  *count = 0;
  if (limit == 0) return Status::OK();  // (to a scan, a limit of 0 is none)
  ScanOptions options;
  options.keys_only = true;
  options.limit = limit;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> cursor, store->scan(range(prefix), options));
  for (; cursor->valid(); cursor->next()) ++*count;
  return cursor->status();
}

}  // namespace tuplekv
