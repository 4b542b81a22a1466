// CREATE VIRTUAL TABLE arguments: `USING module(key=value, ...)`.
//
// SQLite hands a module the text between the commas of its argument list,
// as written. parse_module_options() splits each into an option name (ASCII
// lower-cased, surrounding blanks trimmed) and a value (trimmed, then
// dequoted when written as '...', "...", [...] or `...`, with doubled
// quotes undone), and rejects a malformed argument (no `=`, or an empty
// name, quoted or not) or a repeated option, naming it as written, e.g.
//   tuplekv_kv: expected option=value, got 'key BLOB'
//   tuplekv_kv: option 'STORE' given twice
// Which names are known is each module's business.
#ifndef TUPLEKV_EXT_MODULE_ARGS_H_
#define TUPLEKV_EXT_MODULE_ARGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tuplekv::ext {

struct ModuleOption {
  std::string name;   // lower-case
  std::string value;  // dequoted
  std::string written;  // the name as the user wrote it, for messages
};

// `args` are the module arguments (xCreate's argv[3..]). `module` prefixes
// every message.
Status parse_module_options(std::string_view module, int argc, const char* const* args,
                            std::vector<ModuleOption>* out);

// Removes SQL quoting: 'it''s' -> it's, "a""b" -> a"b, [x] -> x, `y` -> y.
// Anything else is returned unchanged.
std::string dequote(std::string_view s);

// Parses a boolean option value: 1/0, true/false, yes/no, on/off (any case).
Status parse_bool_option(std::string_view module, const ModuleOption& opt, bool* out);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_MODULE_ARGS_H_
