// ext/module_args.h: the `USING module(key=value, ...)` arguments every
// module parses before it looks at a single option. These are the spellings
// users type by hand, so the tests pin what each one becomes (case, blanks,
// SQL quoting) and the exact message a malformed or repeated one earns,
// without a database in the way.
#include "ext/module_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tuplekv::ext {
namespace {

Status parse(const std::vector<const char*>& args, std::vector<ModuleOption>* out) {
  return parse_module_options("tuplekv_kv", static_cast<int>(args.size()), args.data(), out);
}

// The single option that `arg` parses to; a failure to parse fails the test.
ModuleOption one(const char* arg) {
  std::vector<ModuleOption> opts;
  const Status s = parse({arg}, &opts);
  EXPECT_TRUE(s.ok()) << arg << ": " << s.message();
  return opts.size() == 1 ? opts[0] : ModuleOption{};
}

TEST(ModuleArgsTest, NamesAreLowerCasedAndTrimmed) {
  EXPECT_EQ(one("  Store = memory ").name, "store");
  EXPECT_EQ(one("\tFDB_Limits\n=1").name, "fdb_limits");
  // Only ASCII letters fold; other bytes pass through untouched.
  EXPECT_EQ(one("\xC3\x89" "TAT=1").name, "\xC3\x89" "tat");
  // A quoted name is dequoted before it is folded.
  EXPECT_EQ(one("\"Store\"=memory").name, "store");
  EXPECT_EQ(one("[STORE]=memory").name, "store");
}

TEST(ModuleArgsTest, WrittenKeepsTheNameAsTheUserTypedIt) {
  EXPECT_EQ(one("  Store = memory ").written, "Store");
  EXPECT_EQ(one("\"Store\"=memory").written, "\"Store\"");
}

TEST(ModuleArgsTest, OptionsComeOutInTheOrderWritten) {
  std::vector<ModuleOption> opts = {ModuleOption{"stale", "x", "stale"}};
  ASSERT_TRUE(parse({"b=2", "a=1"}, &opts).ok());
  ASSERT_EQ(opts.size(), 2u);  // the stale entry is gone
  EXPECT_EQ(opts[0].name, "b");
  EXPECT_EQ(opts[1].name, "a");
  ASSERT_TRUE(parse({}, &opts).ok());
  EXPECT_TRUE(opts.empty());
}

TEST(ModuleArgsTest, ValuesAreTrimmedThenDequoted) {
  EXPECT_EQ(one("subspace= 'users' ").value, "users");
  EXPECT_EQ(one("subspace=\"us\"\"ers\"").value, "us\"ers");
  EXPECT_EQ(one("subspace=[users]").value, "users");
  EXPECT_EQ(one("subspace=`us``ers`").value, "us`ers");
  EXPECT_EQ(one("subspace='it''s'").value, "it's");
  // Blanks inside the quotes are the user's and stay.
  EXPECT_EQ(one("subspace=' users '").value, " users ");
}

TEST(ModuleArgsTest, UnquotedValuesStayAsWritten) {
  EXPECT_EQ(one("store=Memory").value, "Memory");  // values keep their case
  EXPECT_EQ(one("subspace=a b").value, "a b");
  EXPECT_EQ(one("path=a=b").value, "a=b");  // only the first '=' splits
  EXPECT_EQ(one("subspace='users").value, "'users");
}

TEST(ModuleArgsTest, ArgumentWithoutEqualsIsRejected) {
  std::vector<ModuleOption> opts;
  const std::vector<const char*> args = {"key BLOB"};
  const Status s = parse_module_options("tuplekv_table", 1, args.data(), &opts);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tuplekv_table"), std::string::npos);
  EXPECT_NE(s.message().find("key BLOB"), std::string::npos);
  EXPECT_EQ(s.message(), "tuplekv_table: expected option=value, got 'key BLOB'");
  // The argument is quoted trimmed; a missing one reads as empty.
  EXPECT_EQ(parse({"store=memory", "  key BLOB  "}, &opts).message(),
            "tuplekv_kv: expected option=value, got 'key BLOB'");
  EXPECT_EQ(parse({nullptr}, &opts).message(), "tuplekv_kv: expected option=value, got ''");
}

TEST(ModuleArgsTest, LongArgumentsAreCutInMessages) {
  const std::string arg(300, 'x');
  std::vector<ModuleOption> opts;
  EXPECT_EQ(parse({arg.c_str()}, &opts).message(),
            "tuplekv_kv: expected option=value, got '" + std::string(200, 'x') + "...'");
  // The cut falls before a character, never inside one: here a two-byte
  // U+00E9 straddles bytes 199-200.
  std::string accented(199, 'x');
  for (int i = 0; i < 50; ++i) accented += "\xC3\xA9";
  EXPECT_EQ(parse({accented.c_str()}, &opts).message(),
            "tuplekv_kv: expected option=value, got '" + std::string(199, 'x') + "...'");
  accented.insert(0, "y");  // now one begins right at the cut
  EXPECT_EQ(parse({accented.c_str()}, &opts).message(),
            "tuplekv_kv: expected option=value, got 'y" + std::string(199, 'x') + "...'");
}

TEST(ModuleArgsTest, OptionGivenTwiceIsRejected) {
  std::vector<ModuleOption> opts;
  Status s = parse({"store=memory", "store=sqlite"}, &opts);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tuplekv_kv: option 'store' given twice");
  // Names compare after folding and dequoting; the message names the
  // repeat as the user wrote it.
  s = parse({"store=memory", "STORE=sqlite"}, &opts);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tuplekv_kv: option 'STORE' given twice");
  EXPECT_EQ(parse({"[Store]=memory", "a=1", " \"store\" = sqlite"}, &opts).message(),
            "tuplekv_kv: option '\"store\"' given twice");
}

TEST(ModuleArgsTest, EmptyNameIsRejectedButEmptyValueIsNot) {
  std::vector<ModuleOption> opts;
  const Status s = parse({"  = memory"}, &opts);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tuplekv_kv: expected option=value, got '= memory'");
  EXPECT_EQ(one("subspace=").value, "");
  EXPECT_EQ(one("subspace=  ").value, "");
  EXPECT_EQ(one("subspace=''").value, "");
  // A quoted empty name is empty too.
  for (const char* quoted : {"''=x", "\"\" = x", "[]=x"}) {
    EXPECT_EQ(parse({quoted}, &opts).message(),
              std::string("tuplekv_kv: expected option=value, got '") + quoted + "'");
  }
}

TEST(ModuleArgsTest, DequoteLeavesUnquotedTextAlone) {
  EXPECT_EQ(dequote("users"), "users");
  EXPECT_EQ(dequote(""), "");
  EXPECT_EQ(dequote(" 'a' "), " 'a' ");  // dequote does not trim
  EXPECT_EQ(dequote("[a]]b]"), "a]]b");  // brackets have no doubling
}

TEST(ModuleArgsTest, DequoteLeavesUnterminatedQuotesAlone) {
  EXPECT_EQ(dequote("'"), "'");
  EXPECT_EQ(dequote("'abc"), "'abc");
  EXPECT_EQ(dequote("abc'"), "abc'");
  EXPECT_EQ(dequote("[abc"), "[abc");
  EXPECT_EQ(dequote("'abc\""), "'abc\"");  // quotes that do not match
}

TEST(ModuleArgsTest, DequoteOfEmptyQuotesIsEmpty) {
  EXPECT_EQ(dequote("''"), "");
  EXPECT_EQ(dequote("\"\""), "");
  EXPECT_EQ(dequote("[]"), "");
  EXPECT_EQ(dequote("``"), "");
  EXPECT_EQ(dequote("''''"), "'");
}

TEST(ModuleArgsTest, BooleansInAnyCase) {
  struct Case {
    const char* value;
    bool expected;
  };
  const Case cases[] = {{"1", true},     {"0", false},   {"true", true}, {"TRUE", true},
                        {"False", false}, {"yes", true},  {"YeS", true},  {"NO", false},
                        {"on", true},     {"On", true},   {"off", false}, {"oFF", false}};
  for (const Case& c : cases) {
    bool out = !c.expected;  // so a value left unwritten shows
    const Status s = parse_bool_option("tuplekv_multimap", ModuleOption{"reverse", c.value, "Reverse"}, &out);
    EXPECT_TRUE(s.ok()) << c.value << ": " << s.message();
    EXPECT_EQ(out, c.expected) << c.value;
  }
  // Quoting is gone by the time the value is read.
  bool out = false;
  ASSERT_TRUE(parse_bool_option("tuplekv_multimap", one("reverse='ON'"), &out).ok());
  EXPECT_TRUE(out);
}

TEST(ModuleArgsTest, BadBooleanNamesTheOption) {
  bool out = true;
  const Status s = parse_bool_option("tuplekv_multimap", one("Reverse=maybe"), &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // The option is named as written, and every accepted spelling is listed.
  EXPECT_EQ(s.message(),
            "tuplekv_multimap: Reverse must be 1 or 0 (true/false, yes/no, on/off), not 'maybe'");
  EXPECT_TRUE(out);  // left as it was
  for (const char* bad : {"", "2", "10", "tru", "enabled", " 1"}) {
    EXPECT_EQ(parse_bool_option("tuplekv_kv", ModuleOption{"fdb_limits", bad, "fdb_limits"}, &out).message(),
              std::string("tuplekv_kv: fdb_limits must be 1 or 0 (true/false, yes/no, on/off), not '") + bad +
                  "'");
  }
}

}  // namespace
}  // namespace tuplekv::ext
