// The cursors a virtual table hands SQLite: it keeps a few closed ones for
// its next xOpen, and counts those SQLite holds open. A prepared statement
// opens and closes its cursor on every run, and a warmed-up cursor's
// buffers make the next run allocation-free. A statement stepped but not
// yet reset holds its cursor open (a rename that moves keys checks that).
//
//   SpareCursors<KvCursor> spares;                  // a member of the table
//   KvCursor* c = spares.take();                    // xOpen
//   c->recycle(); spares.give_back(std::unique_ptr<KvCursor>(c));   // xClose
//
// Owns what it keeps. Instantiate its destructor, take() and give_back()
// where `Cursor` is complete (the table's .cc file).
#ifndef TUPLEKV_EXT_SPARE_CURSORS_H_
#define TUPLEKV_EXT_SPARE_CURSORS_H_

#include <cstddef>
#include <memory>
#include <vector>

namespace tuplekv::ext {

template <typename Cursor, size_t kMax = 4>
class SpareCursors {
 public:
  SpareCursors() = default;
  SpareCursors(const SpareCursors&) = delete;
  SpareCursors& operator=(const SpareCursors&) = delete;
  ~SpareCursors() {
    for (Cursor* c : spares_) delete c;
  }

  // A kept cursor, else a new one.
  Cursor* take() {
    Cursor* c = nullptr;
    if (spares_.empty()) {
      c = new Cursor();
    } else {
      c = spares_.back();
      spares_.pop_back();
    }
    ++open_;
    return c;
  }

  // Keeps `c` (already recycled) unless kMax are kept. SQLite forgets a
  // cursor whatever xClose returns, so when keeping it cannot allocate,
  // `c` is deleted as the bad_alloc leaves.
  void give_back(std::unique_ptr<Cursor> c) {
    --open_;
    if (spares_.size() >= kMax) return;
    spares_.reserve(kMax);  // push_back below cannot throw
    spares_.push_back(c.release());
  }

  // Cursors taken and not yet given back: those SQLite holds open.
  size_t open() const { return open_; }

 private:
  std::vector<Cursor*> spares_;
  size_t open_ = 0;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_SPARE_CURSORS_H_
