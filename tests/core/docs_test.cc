// The documents model over the memory store: JSON paths, explode and
// reassembly (round trips over random documents written with random member
// order, whitespace and escapes), the guide's hierarchy as exact tuples,
// json_set / json_remove semantics of subtree writes, merge mode, and bad
// input that must leave the store as it was.
#include "core/model/docs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/memory_store.h"
#include "core/subspace.h"

namespace tuplekv::model {
namespace {

// ---------------------------------------------------------------------------
// A small JSON tree of the test's own, to generate documents and to know
// their canonical form independently of the code under test.

struct Node {
  enum Kind { kNull, kTrue, kFalse, kInt, kBig, kDouble, kString, kArray, kObject } kind = kNull;
  int64_t i = 0;
  std::string text;  // kBig: digits; kString: value
  double d = 0;
  std::vector<Node> items;                                   // kArray
  std::vector<std::pair<std::string, Node>> members;         // kObject (unique names)
};

std::string shortest(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void canonical_string(const std::string& s, std::string* out) {
  *out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      case '\r': *out += "\\r"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          *out += b;
        } else {
          *out += static_cast<char>(c);
        }
    }
  }
  *out += '"';
}

// The form JsonAssembler must produce: compact, members sorted by name bytes.
void canonical(const Node& n, std::string* out) {
  switch (n.kind) {
    case Node::kNull: *out += "null"; break;
    case Node::kTrue: *out += "true"; break;
    case Node::kFalse: *out += "false"; break;
    case Node::kInt: *out += std::to_string(n.i); break;
    case Node::kBig: *out += n.text; break;
    case Node::kDouble: *out += shortest(n.d); break;
    case Node::kString: canonical_string(n.text, out); break;
    case Node::kArray:
      *out += '[';
      for (size_t k = 0; k < n.items.size(); ++k) {
        if (k) *out += ',';
        canonical(n.items[k], out);
      }
      *out += ']';
      break;
    case Node::kObject: {
      auto m = n.members;
      std::sort(m.begin(), m.end(), [](auto& a, auto& b) { return a.first < b.first; });
      *out += '{';
      for (size_t k = 0; k < m.size(); ++k) {
        if (k) *out += ',';
        canonical_string(m[k].first, out);
        *out += ':';
        canonical(m[k].second, out);
      }
      *out += '}';
    }
  }
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string str() {
    static const char* kPieces[] = {"a", "b", "user", "é", "日本", "😀", "\"", "\\", "\n", "\t",
                                    "\x01", " ", ".", "[", "0", "x y", "\x7f", "\u2028", "Z"};
    std::string s;
    const int n = pick(6);
    for (int k = 0; k < n; ++k) s += kPieces[pick(sizeof kPieces / sizeof *kPieces)];
    return s;
  }

  Node scalar() {
    Node n;
    switch (pick(9)) {
      case 0: n.kind = Node::kNull; break;
      case 1: n.kind = Node::kTrue; break;
      case 2: n.kind = Node::kFalse; break;
      case 3: n.kind = Node::kInt; n.i = std::uniform_int_distribution<int64_t>(-1000, 1000)(rng_); break;
      case 4: {
        n.kind = Node::kInt;
        const int64_t edges[] = {INT64_MIN, INT64_MAX, 0, -1, -2, 255, 256, 1LL << 53};
        n.i = edges[pick(8)];
        break;
      }
      case 5: {
        n.kind = Node::kBig;
        n.text = pick(2) ? "-" : "";
        n.text += std::to_string(1 + pick(9));
        const int digits = 19 + pick(60);
        for (int k = 0; k < digits; ++k) n.text += static_cast<char>('0' + pick(10));
        break;
      }
      case 6: {
        n.kind = Node::kDouble;
        uint64_t bits = std::uniform_int_distribution<uint64_t>()(rng_);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        if (!std::isfinite(d)) d = 0.1;
        const double simple[] = {0.5, -2.0, 1e300, 1e-300, 3.141592653589793, 0.1, 100.0, -0.0};
        n.d = pick(2) ? d : simple[pick(8)];
        break;
      }
      default: n.kind = Node::kString; n.text = str(); break;
    }
    return n;
  }

  Node value(int depth, int max_depth) {
    const int r = pick(10);
    if (depth >= max_depth || r < 4) return scalar();
    Node n;
    if (r < 7) {
      n.kind = Node::kObject;
      const int count = pick(6);
      std::map<std::string, bool> seen;
      for (int k = 0; k < count; ++k) {
        std::string name = str();
        if (seen[name]) continue;
        seen[name] = true;
        n.members.emplace_back(name, value(depth + 1, max_depth));
      }
    } else {
      n.kind = Node::kArray;
      const int count = pick(2) ? pick(5) : pick(40);
      for (int k = 0; k < count; ++k) n.items.push_back(value(depth + 1, max_depth));
    }
    return n;
  }

  // A chain of at least `depth` containers with random siblings.
  Node deep(int depth) {
    if (depth == 0) return value(0, 2);
    Node n;
    if (pick(2)) {
      n.kind = Node::kObject;
      n.members.emplace_back("k" + std::to_string(depth), deep(depth - 1));
      n.members.emplace_back(str() + "~", scalar());
    } else {
      n.kind = Node::kArray;
      n.items.push_back(scalar());
      n.items.push_back(deep(depth - 1));
    }
    return n;
  }

  // Writes `n` as JSON with random member order, whitespace and escapes.
  void write(const Node& n, std::string* out) {
    ws(out);
    switch (n.kind) {
      case Node::kNull: *out += "null"; break;
      case Node::kTrue: *out += "true"; break;
      case Node::kFalse: *out += "false"; break;
      case Node::kInt: *out += std::to_string(n.i); break;
      case Node::kBig: *out += n.text; break;
      case Node::kDouble: {
        char b[64];
        std::snprintf(b, sizeof b, pick(2) ? "%.17g" : "%.17e", n.d);
        std::string s = b;
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        *out += s;
        break;
      }
      case Node::kString: escaped(n.text, out); break;
      case Node::kArray:
        *out += '[';
        for (size_t k = 0; k < n.items.size(); ++k) {
          if (k) *out += ',';
          write(n.items[k], out);
        }
        ws(out);
        *out += ']';
        break;
      case Node::kObject: {
        auto m = n.members;
        std::shuffle(m.begin(), m.end(), rng_);
        *out += '{';
        for (size_t k = 0; k < m.size(); ++k) {
          if (k) *out += ',';
          ws(out);
          escaped(m[k].first, out);
          ws(out);
          *out += ':';
          write(m[k].second, out);
        }
        ws(out);
        *out += '}';
      }
    }
    ws(out);
  }

 private:
  void ws(std::string* out) {
    static const char* kWs[] = {"", "", "", " ", "\n", "\t ", "\r\n"};
    *out += kWs[pick(7)];
  }
  void escaped(const std::string& s, std::string* out) {
    *out += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        *out += '\\';
        *out += static_cast<char>(c);
      } else if (c < 0x20 || (c < 0x80 && pick(8) == 0)) {
        char b[8];
        std::snprintf(b, sizeof b, pick(2) ? "\\u%04x" : "\\u%04X", c);
        *out += b;
      } else {
        *out += static_cast<char>(c);
      }
    }
    *out += '"';
  }
  std::mt19937 rng_;
};

std::string round_trip(const std::string& json) {
  JsonExploder ex;
  JsonLeaves leaves;
  const Status s = ex.explode(json, &leaves);
  if (!s.ok()) return "error: " + s.message();
  std::string out;
  JsonAssembler a;
  a.reset(&out);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Status t = a.add(leaves.path(i), leaves.leaf(i));
    if (!t.ok()) return "assemble error: " + t.message();
  }
  if (!a.finish().ok()) return "finish error";
  return out;
}

// ---------------------------------------------------------------------------
// Paths

TEST(DocsPathTest, ParsesSqliteSyntax) {
  JsonPath p;
  ASSERT_TRUE(parse_json_path("$", &p).ok());
  EXPECT_TRUE(p.steps.empty());
  ASSERT_TRUE(parse_json_path("$.a.b[2].c", &p).ok());
  ASSERT_EQ(p.steps.size(), 4u);
  EXPECT_EQ(p.steps[0].member, "a");
  EXPECT_EQ(p.steps[2].kind, PathStep::Kind::kIndex);
  EXPECT_EQ(p.steps[2].n, 2u);
  ASSERT_TRUE(parse_json_path("$.\"key with.dots\"[#-1][#].x y", &p).ok());
  ASSERT_EQ(p.steps.size(), 4u);
  EXPECT_EQ(p.steps[0].member, "key with.dots");
  EXPECT_EQ(p.steps[1].kind, PathStep::Kind::kFromEnd);
  EXPECT_EQ(p.steps[1].n, 1u);
  EXPECT_EQ(p.steps[2].n, 0u);
  EXPECT_EQ(p.steps[3].member, "x y");
  EXPECT_FALSE(p.concrete());
  ASSERT_TRUE(parse_json_path("$.\"\"", &p).ok());
  EXPECT_EQ(p.steps[0].member, "");
  for (const char* bad : {"", "a", "$.", "$..a", "$[", "$[]", "$[-1]", "$[1", "$x", "$.a.",
                          "$.\"abc", "$[#-]", "$[#x]", "$[99999999999999999999]"}) {
    EXPECT_FALSE(parse_json_path(bad, &p).ok()) << bad;
  }
  EXPECT_EQ(parse_json_path("$.a[x]", &p).message(),
            "bad JSON path '$.a[x]': expected an array index at byte 3");
  // Quoted with its bad bytes escaped, so the message stays UTF-8.
  EXPECT_EQ(parse_json_path("$A\xff", &p).message(),
            "bad JSON path '$A\\xff': expected '.' or '[' at byte 1");
}

TEST(DocsPathTest, TextOfPackedPaths) {
  JsonPath p;
  ASSERT_TRUE(parse_json_path("$.user.\"a.b\"[3].\"[x\".q\"r", &p).ok());
  Bytes packed;
  ASSERT_TRUE(pack_path(p, &packed).ok());
  std::string text;
  ASSERT_TRUE(path_text(packed, &text).ok());
  EXPECT_EQ(text, "$.user.\"a.b\"[3].\"[x\".q\"r");
  JsonPath back;
  ASSERT_TRUE(parse_json_path(text, &back).ok());
  Bytes again;
  ASSERT_TRUE(pack_path(back, &again).ok());
  EXPECT_EQ(again, packed);
}

// Every member name has a spelling that reads back as itself, including
// those SQLite's syntax cannot write (a quote in a name that must be
// quoted): their quotes are doubled.
TEST(DocsPathTest, EveryMemberNameRoundTrips) {
  for (const std::string name : {"a", "b_c", "0", "", "$", "x.y", "[1]", "\"", "\"q\"", "a\"b", "a.\"b",
                                 "\"\"", "a\\\"b", "x]", "it's", "\xC3\xA9"}) {
    SCOPED_TRACE(name);
    JsonPath p;
    p.steps.emplace_back();
    p.steps.back().kind = PathStep::Kind::kMember;
    p.steps.back().member = name;
    p.steps.emplace_back();
    p.steps.back().kind = PathStep::Kind::kIndex;
    p.steps.back().n = 1;
    Bytes packed;
    ASSERT_TRUE(pack_path(p, &packed).ok());
    std::string text;
    ASSERT_TRUE(path_text(packed, &text).ok());
    JsonPath back;
    ASSERT_TRUE(parse_json_path(text, &back).ok()) << text;
    ASSERT_EQ(back.steps.size(), 2u) << text;
    EXPECT_EQ(back.steps[0].member, name) << text;
  }
  JsonPath p;
  ASSERT_TRUE(parse_json_path("$.\"\"\"q\"\"\".\"a.\"\"b\"", &p).ok());
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].member, "\"q\"");
  EXPECT_EQ(p.steps[1].member, "a.\"b");
  EXPECT_EQ(parse_json_path("$.\"a\"\"", &p).message(),
            "bad JSON path '$.\"a\"\"': unterminated quoted member name at byte 2");
}

// ---------------------------------------------------------------------------
// Explode and reassemble

TEST(DocsJsonTest, ScalarsAndContainers) {
  EXPECT_EQ(round_trip("1"), "1");
  EXPECT_EQ(round_trip(" \"x\" "), "\"x\"");
  EXPECT_EQ(round_trip("null"), "null");
  EXPECT_EQ(round_trip("{}"), "{}");
  EXPECT_EQ(round_trip("[]"), "[]");
  EXPECT_EQ(round_trip("[[],{},[[]]]"), "[[],{},[[]]]");
  EXPECT_EQ(round_trip("{\"b\":1,\"a\":[true,false,null]}"), "{\"a\":[true,false,null],\"b\":1}");
  EXPECT_EQ(round_trip("1.0"), "1.0");
  EXPECT_EQ(round_trip("-0.0"), "-0.0");
  EXPECT_EQ(round_trip("1E400"), "error: invalid JSON at byte 0: number '1E400' is out of range");
  EXPECT_EQ(round_trip("1e-400"), "0.0");
  EXPECT_EQ(round_trip("0.1"), "0.1");
  EXPECT_EQ(round_trip("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(round_trip("-9223372036854775809"), "-9223372036854775809");
  EXPECT_EQ(round_trip("123456789012345678901234567890"), "123456789012345678901234567890");
  EXPECT_EQ(round_trip("\"a\\u0000b\\u00e9\\ud83d\\ude00\""), "\"a\\u0000bé😀\"");
}

TEST(DocsJsonTest, LeafTypesAndMarkers) {
  JsonExploder ex;
  JsonLeaves l;
  ASSERT_TRUE(ex.explode("{\"a\":{},\"b\":[],\"c\":[1.5,\"s\",true,null]}", &l).ok());
  ASSERT_EQ(l.size(), 6u);
  std::vector<std::string> got;
  for (size_t i = 0; i < l.size(); ++i) {
    Tuple path, leaf;
    ASSERT_TRUE(unpack(l.path(i), &path).ok());
    ASSERT_TRUE(unpack(l.leaf(i), &leaf).ok());
    got.push_back(repr(path) + "=" + repr(leaf));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"('a', -2)=(None,)", "('b', -1)=(None,)",
                                           "('c', 0)=(1.5,)", "('c', 1)=('s',)",
                                           "('c', 2)=(True,)", "('c', 3)=(None,)"}));
}

TEST(DocsJsonTest, BadJsonIsAnError) {
  JsonExploder ex;
  JsonLeaves l;
  for (const char* bad : {"", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\"}", "tru", "nul",
                          "01", "1.", "-", "+1", ".5", "1 2", "[1] [2]", "1] , [2", "\"abc",
                          "\"\\x\"", "\"\\ud800\"", "\"a\x01\"", "{\"a\":1,\"a\":2}",
                          "{\"x\":{\"a\":{},\"a\":[]}}", "\xff", "[1e999]", "NaN",
                          "{1:2}", "'a'"}) {
    const Status s = ex.explode(bad, &l);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.message().rfind("invalid JSON", 0), 0u) << bad << ": " << s.message();
    EXPECT_TRUE(l.empty());
  }
  EXPECT_EQ(ex.explode("{\"q\":{\"a\":1,\"a\":2}}", &l).message(),
            "invalid JSON: duplicate member name \"a\" in the object at $.q");
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_FALSE(ex.explode(deep, &l).ok());
  std::string ok_deep(kMaxJsonDepth - 1, '[');
  ok_deep += std::string(kMaxJsonDepth - 1, ']');
  EXPECT_TRUE(ex.explode(ok_deep, &l).ok());
}

TEST(DocsJsonTest, RandomDocumentsRoundTrip) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Gen g(seed);
    const Node doc = seed % 4 == 0 ? g.deep(10 + g.pick(20)) : g.value(0, 5);
    std::string text, expected;
    g.write(doc, &text);
    canonical(doc, &expected);
    ASSERT_EQ(round_trip(text), expected) << "seed " << seed << "\n" << text;
    // The canonical form is a fixed point.
    ASSERT_EQ(round_trip(expected), expected) << "seed " << seed;
  }
}

TEST(DocsJsonTest, BigArrays) {
  std::string text = "[";
  std::string expected = "[";
  for (int i = 0; i < 5000; ++i) {
    if (i) {
      text += ", ";
      expected += ',';
    }
    text += std::to_string(i * 7) + ".5";
    expected += std::to_string(i * 7) + ".5";
  }
  text += "]";
  expected += "]";
  EXPECT_EQ(round_trip(text), expected);
}

TEST(DocsJsonTest, AssemblerRejectsContradictions) {
  auto p = [](Tuple t) { return *packed(t); };
  const Bytes one = p({TupleValue::int64(1)});
  std::string out;
  JsonAssembler a;
  a.reset(&out);
  ASSERT_TRUE(a.add(p({TupleValue::string("a")}), one).ok());
  EXPECT_EQ(a.add(p({TupleValue::string("a"), TupleValue::string("b")}), one).code(),
            StatusCode::kCorruption);
  a.reset(&out);
  ASSERT_TRUE(a.add(p({TupleValue::int64(0)}), one).ok());
  EXPECT_EQ(a.add(p({TupleValue::int64(2)}), one).code(), StatusCode::kCorruption);
  a.reset(&out);
  EXPECT_EQ(a.add(p({TupleValue::bytes("x")}), one).code(), StatusCode::kCorruption);
  a.reset(&out);
  EXPECT_EQ(a.add({}, p({TupleValue::bytes("x")})).code(), StatusCode::kCorruption);
}

// ---------------------------------------------------------------------------
// Documents over a store

std::vector<std::string> dump(MemoryStore* store) {
  std::vector<std::string> out;
  auto c = store->scan(KeyRange{"", ""}, ScanOptions());
  for (; (*c)->valid(); (*c)->next()) {
    Tuple k, v;
    EXPECT_TRUE(unpack((*c)->key(), &k).ok());
    std::string line = repr(k);
    if (!(*c)->value().empty()) {
      EXPECT_TRUE(unpack((*c)->value(), &v).ok());
      line += '=';
      line += repr(v);
    }
    out.push_back(line);
  }
  return out;
}

Bytes id(int64_t i) { return *packed({TupleValue::int64(i)}); }

Bytes path_of(const std::string& text) {
  JsonPath p;
  EXPECT_TRUE(parse_json_path(text, &p).ok()) << text;
  Bytes b;
  EXPECT_TRUE(pack_path(p, &b).ok());
  return b;
}

class DocsStoreTest : public ::testing::Test {
 protected:
  Status put(int64_t doc, const std::string& json) {
    TUPLEKV_RETURN_IF_ERROR(ex.explode(json, &leaves));
    return docs.put(id(doc), leaves);
  }
  Status set(int64_t doc, const std::string& path, const std::string& json) {
    TUPLEKV_RETURN_IF_ERROR(ex.explode(json, &leaves));
    return docs.set(id(doc), path_of(path), leaves);
  }
  Status remove(int64_t doc, const std::string& path) {
    bool removed = false;
    return docs.remove(id(doc), path_of(path), &removed);
  }
  std::string get(int64_t doc, const std::string& path = "$") {
    std::string json;
    bool found = false;
    const Status s = docs.read(id(doc), path_of(path), &json, &found);
    if (!s.ok()) return "error: " + s.message();
    return found ? json : "<absent>";
  }

  MemoryStore store;
  Docs docs{&store, *packed({TupleValue::string("doc")}), DocsMode::kDocuments};
  JsonExploder ex;
  JsonLeaves leaves;
};

const char* kGuide =
    R"({"user": {"jones": {"friendOf": "smith", "group": ["sales", "service"]},
                 "smith": {"friendOf": "jones", "group": ["dev", "research"]}}})";

TEST_F(DocsStoreTest, GuideDocumentKeys) {
  ASSERT_TRUE(put(7, kGuide).ok());
  EXPECT_EQ(dump(&store),
            (std::vector<std::string>{
                "('doc', 7, 'user', 'jones', 'friendOf')=('smith',)",
                "('doc', 7, 'user', 'jones', 'group', 0)=('sales',)",
                "('doc', 7, 'user', 'jones', 'group', 1)=('service',)",
                "('doc', 7, 'user', 'smith', 'friendOf')=('jones',)",
                "('doc', 7, 'user', 'smith', 'group', 0)=('dev',)",
                "('doc', 7, 'user', 'smith', 'group', 1)=('research',)"}));
  EXPECT_EQ(get(7, "$.user.smith"), R"({"friendOf":"jones","group":["dev","research"]})");
  EXPECT_EQ(get(7, "$.user.smith.group[1]"), "\"research\"");
  EXPECT_EQ(get(7, "$.user.nobody"), "<absent>");
  EXPECT_EQ(get(8), "<absent>");
}

TEST(DocsMergeTest, GuideHierarchyIsExactlySixTuples) {
  MemoryStore store;
  Docs hier(&store, *packed({TupleValue::string("hier")}), DocsMode::kMerge);
  JsonExploder ex;
  JsonLeaves l;
  ASSERT_TRUE(ex.explode(kGuide, &l).ok());
  ASSERT_TRUE(hier.merge(l).ok());
  EXPECT_EQ(dump(&store), (std::vector<std::string>{
                              "('hier', 'user', 'jones', 'friendOf', 'smith')",
                              "('hier', 'user', 'jones', 'group', 0, 'sales')",
                              "('hier', 'user', 'jones', 'group', 1, 'service')",
                              "('hier', 'user', 'smith', 'friendOf', 'jones')",
                              "('hier', 'user', 'smith', 'group', 0, 'dev')",
                              "('hier', 'user', 'smith', 'group', 1, 'research')"}));
  std::string json;
  bool found = false;
  ASSERT_TRUE(hier.read({}, path_of("$.user.smith"), &json, &found).ok());
  EXPECT_EQ(json, R"({"friendOf":"jones","group":["dev","research"]})");
  // The string leaf 'smith' of jones.friendOf is not a member named smith.
  ASSERT_TRUE(hier.read({}, path_of("$.user.jones.friendOf.smith"), &json, &found).ok());
  EXPECT_FALSE(found);
}

TEST(DocsMergeTest, ObjectsMergeOtherValuesReplace) {
  MemoryStore store;
  Docs hier(&store, *packed({TupleValue::string("h")}), DocsMode::kMerge);
  JsonExploder ex;
  JsonLeaves l;
  auto merge = [&](const std::string& j) {
    ASSERT_TRUE(ex.explode(j, &l).ok());
    ASSERT_TRUE(hier.merge(l).ok());
  };
  auto all = [&] {
    std::string json;
    bool found = false;
    EXPECT_TRUE(hier.read({}, {}, &json, &found).ok());
    return found ? json : "<absent>";
  };
  merge(R"({"a":{"x":1,"y":[1,2,3]},"b":"s"})");
  merge(R"({"a":{"y":[9],"z":{}},"b":{"c":true}})");
  EXPECT_EQ(all(), R"({"a":{"x":1,"y":[9],"z":{}},"b":{"c":true}})");
  merge(R"({"a":{"z":{"q":null}},"b":{}})");
  EXPECT_EQ(all(), R"({"a":{"x":1,"y":[9],"z":{"q":null}},"b":{"c":true}})");
  merge(R"({"a":5})");
  EXPECT_EQ(all(), R"({"a":5,"b":{"c":true}})");
  merge(R"({"a":{"k":-2}})");
  EXPECT_EQ(all(), R"({"a":{"k":-2},"b":{"c":true}})");
  merge("[1]");
  EXPECT_EQ(all(), "[1]");
}

TEST_F(DocsStoreTest, SetFollowsJsonSet) {
  ASSERT_TRUE(put(1, R"({"a":{"b":[1,2,3]},"s":"x","e":{},"ea":[]})").ok());
  ASSERT_TRUE(set(1, "$.a.b[1]", R"({"k":[]})").ok());
  EXPECT_EQ(get(1, "$.a"), R"({"b":[1,{"k":[]},3]})");
  ASSERT_TRUE(set(1, "$.a.b[3]", "4").ok());  // append at [length]
  EXPECT_EQ(get(1, "$.a.b"), "[1,{\"k\":[]},3,4]");
  ASSERT_TRUE(set(1, "$.n.m.o", "true").ok());  // intermediate objects
  EXPECT_EQ(get(1, "$.n"), R"({"m":{"o":true}})");
  ASSERT_TRUE(set(1, "$.e.x", "1").ok());  // into an empty object
  EXPECT_EQ(get(1, "$.e"), R"({"x":1})");
  ASSERT_TRUE(set(1, "$.ea[0]", "1").ok());
  EXPECT_EQ(get(1, "$.ea"), "[1]");
  ASSERT_TRUE(set(1, "$.z[0].y", "2").ok());  // a new array from [0]
  EXPECT_EQ(get(1, "$.z"), R"([{"y":2}])");
  ASSERT_TRUE(set(1, "$.s", R"({"now":"object"})").ok());
  EXPECT_EQ(get(1, "$.s"), R"({"now":"object"})");
  const std::string before = get(1);
  EXPECT_EQ(set(1, "$.a.b[9]", "0").message(),
            "cannot set $.a.b[9]: position 9 is past the end of $.a.b (4 elements)");
  EXPECT_EQ(set(1, "$.a.b.c", "0").message(),
            "cannot set $.a.b.c: $.a.b is an array, not an object");
  EXPECT_EQ(set(1, "$.a[0]", "0").message(), "cannot set $.a[0]: $.a is an object, not an array");
  EXPECT_EQ(set(1, "$.s.now.x", "0").message(),
            "cannot set $.s.now.x: $.s.now holds a scalar, not an object");
  EXPECT_EQ(set(1, "$.q[1]", "0").message(),
            "cannot set $.q[1]: $.q does not exist, so position 1 cannot be set");
  EXPECT_FALSE(set(1, "$.a", "{bad").ok());
  EXPECT_EQ(get(1), before);
  ASSERT_TRUE(set(1, "$", "[1]").ok());
  EXPECT_EQ(get(1), "[1]");
}

TEST_F(DocsStoreTest, RemoveFollowsJsonRemove) {
  ASSERT_TRUE(put(1, R"({"a":[{"x":1},[2],3,{"y":[4]}],"b":{"c":1}})").ok());
  ASSERT_TRUE(remove(1, "$.a[1]").ok());
  EXPECT_EQ(get(1, "$.a"), R"([{"x":1},3,{"y":[4]}])");
  ASSERT_TRUE(remove(1, "$.a[0]").ok());
  ASSERT_TRUE(remove(1, "$.a[1].y[0]").ok());
  EXPECT_EQ(get(1, "$.a"), R"([3,{"y":[]}])");
  ASSERT_TRUE(remove(1, "$.b.c").ok());
  EXPECT_EQ(get(1, "$.b"), "{}");
  ASSERT_TRUE(remove(1, "$.nothing.here").ok());
  ASSERT_TRUE(remove(1, "$.a[7]").ok());
  EXPECT_EQ(get(1), R"({"a":[3,{"y":[]}],"b":{}})");
  ASSERT_TRUE(remove(1, "$.a").ok());
  ASSERT_TRUE(remove(1, "$.b").ok());
  EXPECT_EQ(get(1), "{}");
  ASSERT_TRUE(remove(1, "$").ok());
  EXPECT_EQ(get(1), "<absent>");
}

TEST_F(DocsStoreTest, ResolveFromEnd) {
  ASSERT_TRUE(put(1, R"({"a":[10,20,30],"o":{}})").ok());
  auto resolved = [&](const std::string& text) {
    JsonPath p;
    EXPECT_TRUE(parse_json_path(text, &p).ok());
    Bytes packed;
    bool ok = false;
    EXPECT_TRUE(docs.resolve(id(1), p, &packed, &ok).ok());
    if (!ok) return std::string("<unresolved>");
    std::string t;
    EXPECT_TRUE(path_text(packed, &t).ok());
    return t;
  };
  EXPECT_EQ(resolved("$.a[#-1]"), "$.a[2]");
  EXPECT_EQ(resolved("$.a[#]"), "$.a[3]");
  EXPECT_EQ(resolved("$.a[#-3]"), "$.a[0]");
  EXPECT_EQ(resolved("$.a[#-4]"), "<unresolved>");
  EXPECT_EQ(resolved("$.o[#]"), "<unresolved>");
}

TEST_F(DocsStoreTest, NextIdAndMove) {
  int64_t next = 0;
  ASSERT_TRUE(docs.next_id(&next).ok());
  EXPECT_EQ(next, 1);
  ASSERT_TRUE(put(41, "1").ok());
  ASSERT_TRUE(ex.explode("2", &leaves).ok());
  ASSERT_TRUE(docs.put(*packed({TupleValue::string("zz")}), leaves).ok());
  ASSERT_TRUE(docs.next_id(&next).ok());
  EXPECT_EQ(next, 42);
  ASSERT_TRUE(docs.move(id(41), id(5)).ok());
  EXPECT_EQ(get(5), "1");
  EXPECT_EQ(get(41), "<absent>");
  ASSERT_TRUE(put(INT64_MAX, "1").ok());
  EXPECT_EQ(docs.next_id(&next).code(), StatusCode::kConstraint);
}

TEST_F(DocsStoreTest, LimitsRejectBeforeWriting) {
  docs.set_limits(DocsLimits{10000, 100000});
  const std::string big(100001, 'x');
  EXPECT_EQ(put(1, "{\"a\":\"" + big + "\"}").code(), StatusCode::kTooBig);
  const std::string long_name(10000, 'k');
  EXPECT_EQ(put(1, "{\"ok\":1,\"" + long_name + "\":1}").code(), StatusCode::kTooBig);
  EXPECT_TRUE(dump(&store).empty());
  ASSERT_TRUE(put(1, "{\"a\":\"" + std::string(99000, 'x') + "\"}").ok());
}

// ---------------------------------------------------------------------------
// The document cache

// Random steps under the sanitizers are several times slower; keep the
// sequence shorter there but long enough to cross many savepoints.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kCacheSteps = 250;
#else
constexpr int kCacheSteps = 1000;
#endif

TEST(DocsCacheTest, AssembledLeavesAreTheReassembly) {
  MemoryStore store;
  Docs docs(&store, *packed({TupleValue::string("doc")}), DocsMode::kDocuments);
  JsonExploder ex;
  JsonLeaves leaves;
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    Gen g(seed);
    std::string text;
    g.write(g.value(0, 5), &text);
    ASSERT_TRUE(ex.explode(text, &leaves).ok()) << text;
    std::string assembled, read;
    ASSERT_TRUE(assemble_leaves(leaves, &assembled).ok());
    ASSERT_TRUE(docs.put(id(seed), leaves).ok());
    bool found = false;
    ASSERT_TRUE(docs.read(id(seed), {}, &read, &found).ok());
    ASSERT_TRUE(found);
    EXPECT_EQ(assembled, read) << text;
  }
}

// Random whole and subtree writes, moves, erases, refused writes, and
// transactions with savepoints on a store whose Docs keeps a StoreDocCache,
// beside a twin store without one. After every step: the twin's keys are
// the leaf keys (the cache adds nothing to the subspace), every document's
// entry is its reassembly, and there is no entry without a document.
TEST(DocsCacheTest, CacheFollowsWritesAndRollbacks) {
  const Bytes prefix = *packed({TupleValue::string("doc")});
  const Bytes cache_prefix = "\xff" "json";
  MemoryStore store, twin_store;
  StoreDocCache cache(&store, cache_prefix);
  Docs docs(&store, prefix, DocsMode::kDocuments), twin(&twin_store, prefix, DocsMode::kDocuments);
  docs.set_cache(&cache);
  ASSERT_EQ(docs.cache(), &cache);
  JsonExploder ex;
  JsonLeaves leaves;
  Gen g(77);
  const char* kPaths[] = {"$.a", "$.b", "$.a.b", "$.user", "$[0]", "$[1]", "$.a[0]", "$.new.er"};
  int level = -1;  // -1: outside a transaction
  int changed = 0, refused = 0, undone = 0;
  for (int step = 0; step < kCacheSteps; ++step) {
    // Transaction control, the same on both stores.
    const int t = g.pick(8);
    auto both = [&](Status (OrderedStore::*hook)()) {
      ASSERT_TRUE((store.*hook)().ok());
      ASSERT_TRUE((twin_store.*hook)().ok());
    };
    if (level < 0 && t == 0) {
      both(&OrderedStore::begin);
      level = 0;
    } else if (level >= 0 && t == 0) {
      ++level;
      ASSERT_TRUE(store.savepoint(level).ok());
      ASSERT_TRUE(twin_store.savepoint(level).ok());
    } else if (level > 0 && t == 1) {
      ASSERT_TRUE(store.rollback_to(level).ok());
      ASSERT_TRUE(twin_store.rollback_to(level).ok());
      ++undone;
    } else if (level > 0 && t == 2) {
      ASSERT_TRUE(store.release(level).ok());
      ASSERT_TRUE(twin_store.release(level).ok());
      --level;
    } else if (level >= 0 && t == 3) {
      if (g.pick(2) == 0) {
        both(&OrderedStore::commit);
      } else {
        both(&OrderedStore::rollback);
        ++undone;
      }
      level = -1;
    }
    // One write, the same on both.
    const Bytes doc = id(1 + g.pick(5));
    std::string text;
    g.write(g.value(0, 3), &text);
    ASSERT_TRUE(ex.explode(text, &leaves).ok());
    const Bytes path = path_of(kPaths[g.pick(8)]);
    Status a, b;
    bool removed = false;
    switch (g.pick(6)) {
      case 0: a = docs.put(doc, leaves); b = twin.put(doc, leaves); break;
      case 1:
      case 2: a = docs.set(doc, path, leaves); b = twin.set(doc, path, leaves); break;
      case 3: a = docs.remove(doc, path, &removed); b = twin.remove(doc, path, &removed); break;
      case 4: a = docs.erase(doc); b = twin.erase(doc); break;
      default: {
        const Bytes to = id(1 + g.pick(5));
        bool taken = false;
        ASSERT_TRUE(twin.exists(to, &taken).ok());
        if (taken || to == doc) continue;
        a = docs.move(doc, to);
        b = twin.move(doc, to);
      }
    }
    ASSERT_EQ(a.ok(), b.ok()) << a.message() << " / " << b.message();
    (a.ok() ? changed : refused)++;
    // The leaves are the twin's, key for key.
    std::vector<std::string> with_cache = dump(&twin_store);
    std::vector<std::string> mine;
    {
      auto c = store.scan(KeyRange{prefix, *strinc(prefix)}, ScanOptions());
      ASSERT_TRUE(c.ok());
      Tuple k, v;
      for (; (*c)->valid(); (*c)->next()) {
        ASSERT_TRUE(unpack((*c)->key(), &k).ok());
        ASSERT_TRUE(unpack((*c)->value(), &v).ok());
        mine.push_back(repr(k) + "=" + repr(v));
      }
    }
    ASSERT_EQ(mine, with_cache) << "step " << step;
    // Every entry is its document's reassembly; no entry without one.
    size_t documents = 0;
    for (int i = 1; i <= 5; ++i) {
      std::string leaves_text;
      bool in_leaves = false, in_cache = false;
      ASSERT_TRUE(twin.read(id(i), {}, &leaves_text, &in_leaves).ok());
      std::string_view cached;
      ASSERT_TRUE(docs.cached(id(i), &cached, &in_cache).ok());
      ASSERT_EQ(in_cache, in_leaves) << "step " << step << " doc " << i;
      if (in_leaves) {
        ++documents;
        ASSERT_EQ(std::string(cached), leaves_text) << "step " << step << " doc " << i;
      }
      docs.cache_done();
    }
    auto entries = store.scan(KeyRange{cache_prefix, *strinc(cache_prefix)}, ScanOptions());
    ASSERT_TRUE(entries.ok());
    size_t n = 0;
    for (; (*entries)->valid(); (*entries)->next()) ++n;
    ASSERT_EQ(n, documents) << "step " << step;
  }
  EXPECT_GT(changed, kCacheSteps / 3);
  EXPECT_GT(refused, 5);
  EXPECT_GT(undone, 5);
}

TEST(DocsCacheTest, MergeModeHasNoCache) {
  MemoryStore store;
  StoreDocCache cache(&store, "\xff" "json");
  Docs docs(&store, *packed({TupleValue::string("hier")}), DocsMode::kMerge);
  docs.set_cache(&cache);
  EXPECT_EQ(docs.cache(), nullptr);
}

}  // namespace
}  // namespace tuplekv::model
