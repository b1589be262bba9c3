#pragma once
// Event files for the tfevents tests, written by the TensorFlow-free
// writer tests/testdata/tfevents/tfevents_writer.py (Debian's python3).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace hpt::runner::testing {

// Appends `events` (the writer's EVENTS_JSON) to `path` (after TF's
// file_version event).
inline void WriteEvents(const std::string& path, const nlohmann::json& events) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::string quoted = events.dump();
  std::string escaped;
  for (char c : quoted) {
    if (c == '\'') escaped += "'\\''"; else escaped += c;
  }
  const std::string cmd = std::string("/usr/bin/python3 ") + TFEVENTS_WRITER + " '" + path +
                          "' '" + escaped + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace hpt::runner::testing
