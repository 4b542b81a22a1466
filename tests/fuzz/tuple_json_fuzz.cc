// Fuzz target for the JSON form's reader (tuple_from_json, what
// tuple_pack_json() runs) and its writer.
//
// For any input text: parsing either succeeds or fails with
// kInvalidArgument (kNoMemory aside) and a "tuple JSON: " message, and
// nothing crashes, reads out of bounds or recurses without bound. For text
// that parses, the form is stable: JSON -> tuple -> JSON -> tuple gives the
// same tuple and the same text, and when the tuple packs (user types only
// last, none nested), pack_allow_incomplete -> unpack gives it back and
// tuple_to_json of that is the same text again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/tuple.h"
#include "core/tuple_json.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tuplekv::Tuple t;
  const tuplekv::Status s = tuplekv::tuple_from_json(text, &t);
  if (!s.ok()) {
    FUZZ_CHECK(s.code() == tuplekv::StatusCode::kInvalidArgument ||
               s.code() == tuplekv::StatusCode::kNoMemory);
    if (s.code() == tuplekv::StatusCode::kInvalidArgument) {
      FUZZ_CHECK(starts_with(s.message(), "tuple JSON: "));
    }
    return 0;
  }

  // Whatever parsed can be written (strings were checked as UTF-8, user
  // codes as 64..79), and the written form is a fixed point.
  std::string json;
  FUZZ_CHECK(tuplekv::tuple_to_json(t, &json).ok());
  tuplekv::Tuple t2;
  FUZZ_CHECK(tuplekv::tuple_from_json(json, &t2).ok());
  FUZZ_CHECK(t2 == t);
  std::string json2;
  FUZZ_CHECK(tuplekv::tuple_to_json(t2, &json2).ok());
  FUZZ_CHECK(json2 == json);

  // Through the codec and back.
  tuplekv::Bytes packed;
  const tuplekv::Status ps = tuplekv::pack_allow_incomplete(t, &packed);
  if (!ps.ok()) {
    // Only what the codec refuses by contract: misplaced user types.
    FUZZ_CHECK(ps.code() == tuplekv::StatusCode::kInvalidArgument);
    FUZZ_CHECK(ps.message().find("user type") != std::string::npos);
    return 0;
  }
  tuplekv::Tuple back;
  FUZZ_CHECK(tuplekv::unpack(packed, &back).ok());
  FUZZ_CHECK(back == t);
  std::string json3;
  FUZZ_CHECK(tuplekv::tuple_to_json(back, &json3).ok());
  FUZZ_CHECK(json3 == json);
  return 0;
}
