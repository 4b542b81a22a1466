// The JSON text helpers both JSON readers and writers share: the number
// grammar, string escaping with and without DEL, unescaping, and error
// wording.
#include "core/json_text.h"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

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

// `literal` is the text after an opening quote, up to and past its closing
// one; nullopt when unescape_json_string rejects it.
std::optional<std::string> unescape(const std::string& literal, UnescapedStrings* keep) {
  std::string_view out;
  if (!unescape_json_string(literal.data(), literal.data() + literal.size(), keep, &out)) return std::nullopt;
  return std::string(out);
}

TEST(JsonTextTest, UnescapesStringLiterals) {
  UnescapedStrings keep;
  EXPECT_EQ(unescape("abc\" more", &keep), "abc");
  EXPECT_EQ(unescape("\"", &keep), "");
  EXPECT_EQ(unescape("a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\"", &keep), "a\"b\\c/\b\f\n\r\t");
  EXPECT_EQ(unescape("\\u0041\\u00e9\\u4E2D\\u0000\"", &keep), std::string("A\xc3\xa9\xe4\xb8\xad\0", 7));
  EXPECT_EQ(unescape("\\ud83d\\ude00\\uDBFF\\uDFFF\"", &keep), "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
  // Bad escapes, lone or mismatched surrogates, a missing closing quote.
  for (const char* bad : {"\\x\"", "\\u12\"", "\\u12zz\"", "\\ud83d\"", "\\ude00\"", "\\ud83dx\"",
                          "\\ud83d\\u0041\"", "\\ud800\\ue000\"", "\\ud83d\\ud83d\"", "abc", "\\", "\\u00"}) {
    EXPECT_EQ(unescape(bad, &keep), std::nullopt) << bad;
  }
}

TEST(JsonTextTest, UnescapedViewsOutliveLaterStrings) {
  const std::string text = "plain\" \\n1\" \\n2\"";
  const char* end = text.data() + text.size();
  UnescapedStrings keep;
  std::string_view a, b, c;
  ASSERT_TRUE(unescape_json_string(text.data(), end, &keep, &a));
  ASSERT_TRUE(unescape_json_string(text.data() + 7, end, &keep, &b));
  ASSERT_TRUE(unescape_json_string(text.data() + 12, end, &keep, &c));
  // Without escapes the view is of the text itself.
  EXPECT_EQ(a.data(), text.data());
  EXPECT_EQ(a, "plain");
  EXPECT_EQ(b, "\n1");
  EXPECT_EQ(c, "\n2");
}

TEST(JsonTextTest, ErrorWords) {
  EXPECT_EQ(describe_json_error(simdjson::UTF8_ERROR), "invalid UTF-8");
  EXPECT_EQ(describe_json_error(simdjson::INCOMPLETE_ARRAY_OR_OBJECT), "unclosed array or object");
  EXPECT_EQ(describe_json_error(simdjson::DEPTH_ERROR), "nested too deeply");
  EXPECT_FALSE(describe_json_error(simdjson::IO_ERROR).empty());
}

}  // namespace
}  // namespace tuplekv
