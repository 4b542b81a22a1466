// The JSON text helpers both JSON readers and writers share: the number
// grammar, string escaping with and without DEL, and error wording.
#include "core/json_text.h"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>

namespace tuplekv {
namespace {

TEST(JsonTextTest, NumberGrammar) {
  struct Case {
    const char* token;
    bool valid;
    bool integer;
  };
  const Case cases[] = {
      {"0", true, true},        {"-0", true, true},      {"123", true, true},
      {"-9223372036854775809", true, true},              {"1.5", true, false},
      {"1e5", true, false},     {"1E+5", true, false},   {"-0.0e-0", true, false},
      {"01", false, false},     {"+1", false, false},    {"1.", false, false},
      {".5", false, false},     {"1e", false, false},    {"-", false, false},
      {"", false, false},       {"1.5x", false, false},  {"0x10", false, false},
  };
  for (const Case& c : cases) {
    bool integer = false;
    EXPECT_EQ(json_number_grammar(c.token, &integer), c.valid) << c.token;
    if (c.valid) {
      EXPECT_EQ(integer, c.integer) << c.token;
    }
  }
}

TEST(JsonTextTest, StringEscapes) {
  std::string out;
  append_json_string("a\"b\\c\n\t\r\b\f\x01\x1f\x7f\xc3\xa9", &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\xc3\xa9\"");
  out.clear();
  append_json_string("\x7f", &out, JsonEscape::kAlsoDelete);
  EXPECT_EQ(out, "\"\\u007f\"");
  out.clear();
  out.push_back('x');
  append_json_string("", &out);
  EXPECT_EQ(out, "x\"\"");
}

TEST(JsonTextTest, ErrorWords) {
  EXPECT_EQ(describe_json_error(simdjson::UTF8_ERROR), "invalid UTF-8");
  EXPECT_EQ(describe_json_error(simdjson::INCOMPLETE_ARRAY_OR_OBJECT), "unclosed array or object");
  EXPECT_EQ(describe_json_error(simdjson::DEPTH_ERROR), "nested too deeply");
  EXPECT_FALSE(describe_json_error(simdjson::IO_ERROR).empty());
}

}  // namespace
}  // namespace tuplekv
