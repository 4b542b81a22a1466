// JSON documents as path -> leaf keys (FoundationDB data-modeling guide,
// "Hierarchies" and "Documents"; DESIGN.md §4).
//
// Every leaf of a JSON value is one key. Its path is a tuple: an object
// member is a string element, an array position an integer from 0. Empty
// objects and arrays, which have no leaves, are kept as a marker element
// after their path: -2 for {}, -1 for [] (the guide's EMPTY_OBJECT and
// EMPTY_ARRAY). Two layouts over one subspace prefix S:
//
//   documents (DocsMode::kDocuments), one document per id:
//     pack((S, id) + path)           -> pack((leaf,))
//     pack((S, id) + path + (-2,))   -> pack((None,))     an empty object
//   one merged tree (DocsMode::kMerge, the guide's nested keyspace):
//     pack((S,) + path + (leaf,))    -> ''
//     pack((S,) + path + (-2, None)) -> ''
//
//   {"user": {"smith": {"group": ["dev", "research"]}}} in merge mode, S='hier':
//     ('hier', 'user', 'smith', 'group', 0, 'dev')
//     ('hier', 'user', 'smith', 'group', 1, 'research')
//
// Leaves keep their JSON type: integers that fit int64 are int elements,
// larger ones big integers (up to the tuple layer's 255 bytes), other
// numbers doubles (read with correct rounding, written with the shortest
// digits that read back to the same bits, always with '.' or an exponent so
// they stay doubles), true/false bool elements, null the null element,
// strings string elements. Because a subtree is a key prefix, reading or
// replacing one member never touches the rest of the document.
//
// Reassembly reads keys in key order, so object members come back sorted
// by the tuple order of their names (byte order of UTF-8), not in the order
// they were written; JSON does not give member order a meaning. Arrays come
// back in index order. A member name that appears twice in one object is
// an error (readers disagree on which one counts).
//
// Paths use SQLite's JSON path syntax (as json_extract and json_set read
// it): `$`, `.name` (up to the next '.' or '['), `."any name"` (up to the
// next '"'; no escapes), `[N]`, `[#]` (one past the last element) and
// `[#-N]` (N from the end). Writes follow json_set and json_remove: setting
// a path creates missing intermediate objects (and an array when the next
// step is [0]), appends at [#] or [length], and removing an array element
// moves the later elements down. Where json_set would silently do nothing
// (a scalar or an array where a member is needed, an index past the end),
// the model returns kInvalidArgument instead and changes nothing.
//
// Thread safety: none. A JsonExploder or Docs belongs to one thread.
#ifndef TUPLEKV_CORE_MODEL_DOCS_H_
#define TUPLEKV_CORE_MODEL_DOCS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"
#include "core/tuple.h"

namespace tuplekv::model {

inline constexpr int64_t kEmptyObjectMarker = -2;
inline constexpr int64_t kEmptyArrayMarker = -1;
// Deepest accepted nesting of a document (SQLite's json1 also stops at
// about a thousand levels).
inline constexpr size_t kMaxJsonDepth = 1000;

// ---------------------------------------------------------------------------
// Paths

struct PathStep {
  enum class Kind : uint8_t {
    kMember,   // .name
    kIndex,    // [n]
    kFromEnd,  // [#-n]; [#] is n = 0 (one past the last element)
  };
  Kind kind = Kind::kMember;
  std::string member;
  uint64_t n = 0;
};

struct JsonPath {
  std::vector<PathStep> steps;
  // True when no step counts from the end (the path packs without a read).
  bool concrete() const;
};

// Parses SQLite's JSON path syntax (see the file comment), plus one
// extension: inside a quoted member name, "" is a quote of the name (which
// SQLite cannot write at all; before, such a path was an error). kInvalidArgument
// with a message naming the offending byte, e.g.
//   "JSON path must start with '$'", "empty member name at byte 2".
Status parse_json_path(std::string_view text, JsonPath* out);

// Appends the packed elements of a concrete path. kInvalidArgument for a
// [#] step or a member name that is not valid UTF-8.
Status pack_path(const JsonPath& path, Bytes* out);

// The path text ("$.user.smith.group[0]") of packed path elements; a
// trailing empty-container marker is left out. kCorruption for elements
// that are not member names or array positions.
Status path_text(BytesView packed_path, std::string* out);

// Appends `.name` or `."name"` for one member, whichever SQLite reads back
// as `name`. A name that must be quoted (it is empty, starts with '"', or
// holds '.' or '[') and holds '"' has no spelling in SQLite's syntax: its
// quotes are doubled, which parse_json_path() reads back.
void append_member_text(std::string_view name, std::string* out);

// ---------------------------------------------------------------------------
// JSON text -> leaves

// The leaves of one JSON value, sorted by path: each is the packed path
// (relative to the value's root, a marker element last for an empty
// container) and the packed leaf element (the null element for markers).
class JsonLeaves {
 public:
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  BytesView path(size_t i) const {
    return BytesView(paths_).substr(entries_[i].path_begin, entries_[i].path_size);
  }
  BytesView leaf(size_t i) const {
    return BytesView(leaves_).substr(entries_[i].leaf_begin, entries_[i].leaf_size);
  }
  // Total bytes of all paths and leaves (for size estimates).
  size_t bytes() const { return paths_.size() + leaves_.size(); }
  void clear();

 private:
  friend class JsonExploder;
  struct Entry {
    uint32_t path_begin, path_size, leaf_begin, leaf_size;
  };
  Bytes paths_;
  Bytes leaves_;
  std::vector<Entry> entries_;
};

// Parses JSON text (RFC 8259, strict: UTF-8, no trailing content, no
// duplicate member names, at most kMaxJsonDepth levels) with simdjson and
// explodes it into leaves. Keeps its parser and buffers between calls.
// Errors are kInvalidArgument starting "invalid JSON" with a byte offset
// where one is known.
class JsonExploder {
 public:
  JsonExploder();
  ~JsonExploder();
  JsonExploder(const JsonExploder&) = delete;
  JsonExploder& operator=(const JsonExploder&) = delete;

  Status explode(std::string_view json, JsonLeaves* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Leaves -> JSON text

// Appends the JSON text of one packed leaf element (null, bool, int, big
// int, double, float, string). kCorruption for other element types.
Status append_leaf_json(BytesView leaf, std::string* out);

// Rebuilds a JSON value from its leaves given in key order, streaming: no
// tree is built. Checks what it is given: leaves that contradict each
// other (a path both a leaf and a container, array positions with gaps,
// mixed member names and positions) are kCorruption.
class JsonAssembler {
 public:
  // Starts a value appended to *out.
  void reset(std::string* out);
  // `path` relative to the value's root, as in JsonLeaves.
  Status add(BytesView path, BytesView leaf);
  // Closes every open container. REQUIRES: at least one add().
  Status finish();
  bool started() const { return started_; }

 private:
  struct Level {
    bool array = false;
    Bytes child;          // packed element of the child being written
    int64_t index = 0;    // arrays: position of `child`
  };
  Status open_child(size_t depth, BytesView element);
  std::string* out_ = nullptr;
  std::vector<Level> stack_;
  std::vector<BytesView> elements_;
  bool started_ = false;
  bool root_done_ = false;  // the root was a scalar or an empty container
};

// The JSON text of exploded leaves (in JsonLeaves order), exactly what
// reassembling them from the store gives.
Status assemble_leaves(const JsonLeaves& leaves, std::string* json);

// ---------------------------------------------------------------------------
// The document cache

// Whole-document JSON text kept beside the leaves, keyed by the packed id
// element, so that reading a whole document is one lookup instead of one
// key per leaf. The leaves stay the truth and keep exactly the layout of
// the file comment: the cache lives elsewhere (another table, or keys
// outside the subspace), Docs writes it in the same transaction as the
// leaves, and what it holds for a document is always the text that
// reassembling the document's leaves gives, byte for byte.
class DocCache {
 public:
  virtual ~DocCache() = default;
  // Whether `doc` has an entry, without reading its text.
  virtual Status contains(BytesView doc, bool* found) = 0;
  // *json views the entry of `doc` (*found false when there is none) until
  // the next call on this cache or done(). A view, not a copy: a whole
  // document read copies the text once into SQLite's result, no more.
  virtual Status get(BytesView doc, std::string_view* json, bool* found) = 0;
  // Ends the view of the last get() (an SQLite cache releases its
  // statement: it must not stay on a row between calls).
  virtual void done() {}
  virtual Status put(BytesView doc, std::string_view json) = 0;
  virtual Status erase(BytesView doc) = 0;
};

// A DocCache inside an OrderedStore: `key_prefix + doc` -> the text. With
// the leaves' own store and a prefix no tuple key starts with (0xFF, as
// FoundationDB's system keys), the cache follows every transaction,
// savepoint and rollback of the leaves exactly. REQUIRES: the store
// outlives the cache.
class StoreDocCache final : public DocCache {
 public:
  StoreDocCache(OrderedStore* store, Bytes key_prefix)
      : store_(store), prefix_(std::move(key_prefix)) {}
  Status contains(BytesView doc, bool* found) override;
  Status get(BytesView doc, std::string_view* json, bool* found) override;
  Status put(BytesView doc, std::string_view json) override;
  Status erase(BytesView doc) override;

 private:
  const Bytes& key(BytesView doc);
  OrderedStore* store_;
  Bytes prefix_;
  Bytes key_;
  Bytes text_;  // what get() views, reused between calls
};

// ---------------------------------------------------------------------------
// Documents over an ordered store

// Merge mode keeps the leaf in the key: splits the elements after a tree's
// prefix into the path and the leaf (the last element). kCorruption when
// there is no element.
Status split_merge_key(BytesView rest, BytesView* path, BytesView* leaf);

enum class DocsMode : uint8_t { kDocuments, kMerge };

// FoundationDB's limits, enforced when set (0: no limit).
struct DocsLimits {
  size_t max_key = 0;    // bytes of a whole key, prefix included
  size_t max_value = 0;  // bytes of a stored value
};

enum class NodeKind : uint8_t {
  kAbsent,
  kScalar,
  kObject,       // with members
  kArray,        // with elements
  kEmptyObject,
  kEmptyArray,
};

// `doc` arguments below are the packed id element in kDocuments mode and
// empty in kMerge mode; `path` arguments are packed, concrete paths.
class Docs {
 public:
  Docs(OrderedStore* store, Bytes prefix, DocsMode mode)
      : store_(store), prefix_(std::move(prefix)), mode_(mode) {}

  const Bytes& prefix() const { return prefix_; }
  DocsMode mode() const { return mode_; }
  void set_limits(const DocsLimits& limits) { limits_ = limits; }
  void set_prefix(Bytes prefix) { prefix_ = std::move(prefix); }
  // Documents mode: keep `cache` (not owned; null for none) equal to the
  // leaves on every write below. Whole-document writes store the text of
  // the leaves they write; subtree writes (set and remove below the root)
  // rebuild the document's entry from its leaves.
  void set_cache(DocCache* cache) { cache_ = mode_ == DocsMode::kDocuments ? cache : nullptr; }
  DocCache* cache() const { return cache_; }
  // Every key read (scans, probes, reassembly) and every scan started is
  // added to these, when set (the SQL module's tuplekv_stats counters).
  void set_counters(uint64_t* keys_read, uint64_t* ranges) {
    keys_read_ = keys_read;
    ranges_ = ranges;
  }

  // prefix + doc + path: the key every key of that subtree starts with.
  void subtree_key(BytesView doc, BytesView path, Bytes* out) const;

  // Whether the document (merge mode: the tree) has any key.
  Status exists(BytesView doc, bool* found);
  // The JSON text of the subtree at `path`; *found false when absent.
  Status read(BytesView doc, BytesView path, std::string* json, bool* found);
  // The whole document's text from the cache, as DocCache::get (a view
  // until cache_done() or the next use of the cache); *found false when
  // there is no cache or no entry (then read the leaves: the cache may miss
  // an entry, never disagree with one).
  Status cached(BytesView doc, std::string_view* json, bool* found);
  void cache_done() {
    if (cache_ != nullptr) cache_->done();
  }
  // Whether the cache has an entry for `doc` (false without a cache).
  Status cache_contains(BytesView doc, bool* found);
  // Rebuilds the cache entry of `doc` from its leaves (removes it when the
  // document has none). No-op without a cache.
  Status refresh_cache(BytesView doc);
  // Reads a subtree from a cursor positioned on its first key; consumes
  // the cursor up to the first key that does not start with `subtree_key`.
  Status assemble(Cursor* cursor, BytesView subtree_key, std::string* json);

  // What is at `path`; with `length`, also the number of elements when it
  // is an array.
  Status node(BytesView doc, BytesView path, NodeKind* kind, uint64_t* length = nullptr);

  // Packs `path`, resolving [#-n] against the stored document. *resolved
  // false (and OK) when a [#-n] step does not name an element position
  // (not an array, or n > length); the packed path then ends there.
  Status resolve(BytesView doc, const JsonPath& path, Bytes* packed, bool* resolved);

  // kTooBig when a leaf written under `path` would exceed the limits.
  Status check_limits(BytesView doc, BytesView path, const JsonLeaves& leaves) const;

  // Replaces the whole document (merge mode: the tree) with `leaves`.
  // `known_absent` skips clearing the old keys.
  Status put(BytesView doc, const JsonLeaves& leaves, bool known_absent = false);
  // json_set(doc, path, value), with the errors of the file comment.
  Status set(BytesView doc, BytesView path, const JsonLeaves& leaves);
  // json_remove(doc, path). *removed false when nothing was there.
  Status remove(BytesView doc, BytesView path, bool* removed);
  // Removes the whole document (merge mode: the tree).
  Status erase(BytesView doc);
  // Merge mode: objects merge member by member, anything else (a scalar,
  // an array, an object meeting a non-object) replaces what was at its
  // path; an empty object leaves an existing object as it is.
  Status merge(const JsonLeaves& leaves);
  // Moves every key of document `from` to document `to` (an UPDATE of id).
  Status move(BytesView from, BytesView to);

  // Documents mode: one more than the largest integer id, 1 when there is
  // none. kConstraint when that would overflow int64.
  Status next_id(int64_t* id);

 private:
  // set() and remove() below the root, without the cache.
  Status set_subtree(BytesView doc, BytesView path, const JsonLeaves& leaves);
  Status remove_subtree(BytesView doc, BytesView path, bool* removed);
  Status write_leaves(BytesView base, const JsonLeaves& leaves, size_t lo, size_t hi);
  Status write_marker(BytesView key, bool object);
  Status clear_subtree(BytesView key);
  Status classify(BytesView subtree, BytesView key, BytesView value, NodeKind* kind) const;
  Status merge_node(BytesView root_key, Bytes* path, size_t lo, size_t hi, const JsonLeaves& l);

  Result<std::unique_ptr<Cursor>> scan(const KeyRange& r, const ScanOptions& o);
  void count_key() {
    if (keys_read_ != nullptr) ++*keys_read_;
  }

  OrderedStore* store_;
  uint64_t* keys_read_ = nullptr;
  uint64_t* ranges_ = nullptr;
  Bytes prefix_;
  DocsMode mode_;
  DocsLimits limits_;
  DocCache* cache_ = nullptr;
  Bytes key_, key2_;
  std::string text_;  // the cache entry being written
};

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_DOCS_H_
