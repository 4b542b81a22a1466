// JSON text helpers shared by the tuple JSON form (core/tuple_json.cc) and
// the document model (core/model/docs.cc): the pieces both need to read and
// write JSON text the same way, kept in one place so the two cannot drift.
//
// Nothing here parses a document; both callers parse with simdjson and use
// these for what simdjson leaves to its user: the exact number grammar,
// string escaping on output, and error wording.
#ifndef TUPLEKV_CORE_JSON_TEXT_H_
#define TUPLEKV_CORE_JSON_TEXT_H_

#include <deque>
#include <string>
#include <string_view>

namespace tuplekv {

// JSON's four whitespace bytes.
inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Checks a number token against RFC 8259's grammar
//   -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
// (simdjson classifies number tokens but does not check all of it) and
// says whether it is an integer (no fraction, no exponent).
bool json_number_grammar(std::string_view token, bool* is_integer);

// Which bytes append_json_string escapes besides '"', '\' and the control
// characters below 0x20 that JSON requires.
enum class JsonEscape : bool {
  kRequired,    // only what RFC 8259 requires (json1 writes the same)
  kAlsoDelete,  // DEL (0x7F) too, as \u007f: text that survives any terminal
};

// Appends `s` (valid UTF-8) as a JSON string literal: short escapes where
// JSON has them, \u00XX for the other escaped bytes, the rest as is.
void append_json_string(std::string_view s, std::string* out,
                        JsonEscape escape = JsonEscape::kRequired);

// Strings unescaped from one JSON document. Each keeps its place until
// clear(), so views of them last as long as views into the document's own
// text do.
class UnescapedStrings {
 public:
  std::string& add() { return strings_.emplace_back(); }
  void clear() { strings_.clear(); }

 private:
  std::deque<std::string> strings_;
};

// The value of the JSON string literal whose content starts at `raw` (just
// after its opening quote) and ends at its closing quote, before `end`:
// a view of the text itself when it has no escape, else of a string added
// to `*keep`. False on an invalid escape, a lone surrogate or no closing
// quote before `end`. Allocates only through std::string (bad_alloc on
// failure): simdjson 3.0's On Demand parser unescapes into a buffer whose
// allocation it does not check, so a failed allocation there would crash.
bool unescape_json_string(const char* raw, const char* end, UnescapedStrings* keep,
                          std::string_view* out);

// What a simdjson error code means, in words about the input (some of
// simdjson's own messages describe its internals). Takes the code as an int
// so that this header does not pull in simdjson.
std::string describe_json_error(int simdjson_error);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_JSON_TEXT_H_
