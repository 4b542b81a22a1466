// MD5 (RFC 1321), only for sqllogictest result hashes: "N values hashing to
// <md5 hex>" is the md5 of every rendered value followed by "\n". Not for
// anything security related.
#ifndef TUPLEKV_TESTS_SLT_MD5_H_
#define TUPLEKV_TESTS_SLT_MD5_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tuplekv::slt {

class Md5 {
 public:
  Md5();
  void update(std::string_view data);
  // Finishes the digest and returns it as 32 lower-case hex digits. The
  // object is reset afterwards and can hash a new message.
  std::string hex_digest();

 private:
  void reset();
  void process_block(const unsigned char* block);

  uint32_t state_[4];
  uint64_t total_bytes_;
  unsigned char buffer_[64];
  size_t buffered_;
};

// md5 hex of one string.
std::string md5_hex(std::string_view data);

}  // namespace tuplekv::slt

#endif  // TUPLEKV_TESTS_SLT_MD5_H_
