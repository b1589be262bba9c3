#pragma once
// `--name value` flags for the benchmark mains: `flags` holds every known
// name with its default; an unknown name or a name without a value prints
// one line to stderr and returns false.

#include <cstdio>
#include <map>
#include <string>

namespace hpt::bench {

inline bool ReadFlags(int argc, char** argv,
                      std::map<std::string, std::string>& flags) {
  for (int i = 1; i < argc; i += 2) {
    const std::string name = argv[i];
    if (name.rfind("--", 0) != 0 || flags.count(name.substr(2)) == 0) {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return false;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "flag %s needs a value\n", argv[i]);
      return false;
    }
    flags[name.substr(2)] = argv[i + 1];
  }
  return true;
}

}  // namespace hpt::bench
