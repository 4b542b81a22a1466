// Fuzz target for the documents model's read side: rebuilding JSON from the
// leaves a store hands back (core/model/docs.h, "Leaves -> JSON text"),
// which anyone with write access to the database file may have changed.
//
// Input: records of one length byte and that many bytes of packed path,
// then one length byte and that many bytes of packed leaf, until the input
// ends. The records are sorted by path, as a scan of the store gives them,
// and fed to a JsonAssembler. For any input, nothing crashes, reads out of
// bounds or recurses without bound, and:
//   - path_text() of every path and append_leaf_json() of every leaf either
//     succeed or report kCorruption, and a path's text starts with '$';
//   - whatever the assembler accepts is JSON that JsonExploder reads back
//     (except an infinity, which is written 9e999 as SQLite's json1 does)
//     into leaves at exactly the paths it was given, and a single leaf's
//     JSON text is such JSON as well.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/docs.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using tuplekv::BytesView;
using tuplekv::Status;
using tuplekv::StatusCode;

// JSON text the exploder must read back: all the assembler may write.
// With `paths`, the leaves it reads back must be at exactly those paths:
// the assembler wrote each leaf where its path says, and accepted no gap,
// duplicate or contradiction. (Their values may be spelled otherwise: a
// float comes back a double, a NaN null.)
void check_reads_back(const std::string& json, const std::vector<std::string>* paths) {
  if (json.find("9e999") != std::string::npos) return;
  static auto* exploder = new tuplekv::model::JsonExploder();
  tuplekv::model::JsonLeaves leaves;
  const Status s = exploder->explode(json, &leaves);
  if (!s.ok()) std::fprintf(stderr, "does not read back: %s\n  %s\n", s.message().c_str(), json.c_str());
  FUZZ_CHECK(s.ok());
  if (paths == nullptr) return;
  FUZZ_CHECK(leaves.size() == paths->size());
  for (size_t i = 0; i < leaves.size(); ++i) FUZZ_CHECK(leaves.path(i) == (*paths)[i]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const BytesView input(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> records;  // owned: exact sizes
  size_t at = 0;
  while (at < input.size()) {
    const size_t path_size = std::min<size_t>(static_cast<uint8_t>(input[at]), input.size() - at - 1);
    std::string path(input.substr(at + 1, path_size));
    at += 1 + path_size;
    std::string leaf;
    if (at < input.size()) {
      const size_t leaf_size = std::min<size_t>(static_cast<uint8_t>(input[at]), input.size() - at - 1);
      leaf.assign(input.substr(at + 1, leaf_size));
      at += 1 + leaf_size;
    }
    records.emplace_back(std::move(path), std::move(leaf));
  }
  std::sort(records.begin(), records.end());

  for (const auto& [path, leaf] : records) {
    std::string text;
    const Status p = tuplekv::model::path_text(path, &text);
    FUZZ_CHECK(p.ok() || p.code() == StatusCode::kCorruption);
    if (p.ok()) FUZZ_CHECK(!text.empty() && text[0] == '$');
    std::string json;
    const Status l = tuplekv::model::append_leaf_json(leaf, &json);
    FUZZ_CHECK(l.ok() || l.code() == StatusCode::kCorruption);
    if (l.ok()) check_reads_back(json, nullptr);
  }

  if (records.empty()) return 0;
  std::string json;
  tuplekv::model::JsonAssembler assembler;
  assembler.reset(&json);
  Status s;
  for (const auto& [path, leaf] : records) {
    s = assembler.add(path, leaf);
    if (!s.ok()) break;
  }
  if (s.ok()) s = assembler.finish();
  FUZZ_CHECK(s.ok() || s.code() == StatusCode::kCorruption);
  if (s.ok()) {
    std::vector<std::string> paths;
    for (const auto& r : records) paths.push_back(r.first);
    check_reads_back(json, &paths);
  }
  return 0;
}
