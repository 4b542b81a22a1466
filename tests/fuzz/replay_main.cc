// Runs a fuzz target over saved inputs without libFuzzer, so the seed corpus
// (and any crash reproducer) runs in every build, sanitizers included.
//
//   tuple_decode_fuzz_replay corpus/tuple_decode_fuzz [more dirs or files]
//
// Exits nonzero when a path is missing or nothing was run: an empty corpus
// must not look like a pass.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool run_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so reads past the end are caught.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus dir or file>...\n", argv[0]);
    return 2;
  }
  size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());  // a stable order for reproducible runs
      for (const auto& p : files) {
        if (!run_file(p)) return 1;
        ++ran;
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      if (!run_file(arg)) return 1;
      ++ran;
    } else {
      std::fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      return 1;
    }
  }
  std::printf("replay: ran %zu inputs\n", ran);
  if (ran == 0) {
    std::fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  return 0;
}
