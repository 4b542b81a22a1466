// Fuzz target for the documents model's text side: JSON paths in SQLite's
// syntax and JSON documents exploded into leaves (what every INSERT and
// UPDATE of tuplekv_docs runs on user text).
//
// Input: the first line is a path, the rest a document (no newline: the
// whole input is the document, the path is "$"). For any input, nothing
// crashes, reads out of bounds or recurses without bound, and:
//   - a path that parses packs, prints as text, and that text parses and
//     packs to the same bytes;
//   - a document either fails with kInvalidArgument "invalid JSON..." (or
//     kNoMemory) or explodes into leaves whose reassembled text explodes
//     into the same leaves and reassembles to the same text.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/model/docs.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using tuplekv::Bytes;
using tuplekv::Status;
using tuplekv::StatusCode;

void check_path(std::string_view text) {
  tuplekv::model::JsonPath path;
  if (!tuplekv::model::parse_json_path(text, &path).ok()) return;
  Bytes packed;
  if (!tuplekv::model::pack_path(path, &packed).ok()) return;  // e.g. [#] forms
  std::string printed;
  FUZZ_CHECK(tuplekv::model::path_text(packed, &printed).ok());
  tuplekv::model::JsonPath again;
  if (!tuplekv::model::parse_json_path(printed, &again).ok()) {
    // A member name holding '"' together with '.' or '[' has no spelling
    // in SQLite's path syntax; any other printed path must parse.
    FUZZ_CHECK(text.find('"') != std::string_view::npos || text.find('\\') != std::string_view::npos);
    return;
  }
  Bytes repacked;
  FUZZ_CHECK(tuplekv::model::pack_path(again, &repacked).ok());
  FUZZ_CHECK(repacked == packed);
}

bool same_leaves(const tuplekv::model::JsonLeaves& a, const tuplekv::model::JsonLeaves& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.path(i) != b.path(i) || a.leaf(i) != b.leaf(i)) return false;
  }
  return true;
}

void check_document(std::string_view json) {
  static tuplekv::model::JsonExploder exploder;
  tuplekv::model::JsonLeaves leaves;
  const Status s = exploder.explode(json, &leaves);
  if (!s.ok()) {
    FUZZ_CHECK(s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNoMemory);
    return;
  }
  std::string text;
  FUZZ_CHECK(tuplekv::model::assemble_leaves(leaves, &text).ok());
  tuplekv::model::JsonLeaves again;
  FUZZ_CHECK(exploder.explode(text, &again).ok());
  FUZZ_CHECK(same_leaves(leaves, again));
  std::string text2;
  FUZZ_CHECK(tuplekv::model::assemble_leaves(again, &text2).ok());
  FUZZ_CHECK(text2 == text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) {
    check_path("$");
    check_document(input);
  } else {
    check_path(input.substr(0, newline));
    check_document(input.substr(newline + 1));
  }
  return 0;
}
