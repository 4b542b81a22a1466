#include "ext/module_args.h"

namespace tuplekv::ext {

namespace {

std::string_view trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// At most 200 bytes of `s`, cut before a character rather than inside one
// (SQLite passes the message on as UTF-8 text).
std::string quoted_for_message(std::string_view s) {
  constexpr size_t kMax = 200;
  if (s.size() <= kMax) return std::string(s);
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

}  // namespace

std::string dequote(std::string_view s) {
  if (s.size() < 2) return std::string(s);
  const char open = s.front();
  char close;
  switch (open) {
    case '\'':
    case '"':
    case '`':
      close = open;
      break;
    case '[':
      close = ']';
      break;
    default:
      return std::string(s);
  }
  if (s.back() != close) return std::string(s);
  std::string out;
  const std::string_view inner = s.substr(1, s.size() - 2);
  for (size_t i = 0; i < inner.size(); ++i) {
    out.push_back(inner[i]);
    // A doubled closing quote stands for one (not for [...]).
    if (open != '[' && inner[i] == close && i + 1 < inner.size() && inner[i + 1] == close) ++i;
  }
  return out;
}

Status parse_module_options(std::string_view module, int argc, const char* const* args,
                            std::vector<ModuleOption>* out) {
  out->clear();
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = trim(args[i] != nullptr ? args[i] : "");
    const size_t eq = arg.find('=');
    ModuleOption opt;
    if (eq != std::string_view::npos) {
      opt.written = std::string(trim(arg.substr(0, eq)));
      opt.name = lower_ascii(dequote(opt.written));
    }
    // A quoted empty name ('' = x) is no more a name than a missing one.
    if (opt.name.empty()) {
      return Status::InvalidArgument(std::string(module) + ": expected option=value, got '" +
                                     quoted_for_message(arg) + "'");
    }
    opt.value = dequote(trim(arg.substr(eq + 1)));
    for (const ModuleOption& seen : *out) {
      if (seen.name == opt.name) {
        return Status::InvalidArgument(std::string(module) + ": option '" + opt.written +
                                       "' given twice");
      }
    }
    out->push_back(std::move(opt));
  }
  return Status::OK();
}

Status parse_bool_option(std::string_view module, const ModuleOption& opt, bool* out) {
  const std::string v = lower_ascii(opt.value);
  if (v == "1" || v == "true" || v == "yes" || v == "on") {
    *out = true;
  } else if (v == "0" || v == "false" || v == "no" || v == "off") {
    *out = false;
  } else {
    return Status::InvalidArgument(std::string(module) + ": " + opt.written +
                                   " must be 1 or 0 (true/false, yes/no, on/off), not '" +
                                   quoted_for_message(opt.value) + "'");
  }
  return Status::OK();
}

}  // namespace tuplekv::ext
