// A profile fixture's text, for the profile tests (one helper: the unity build joins their files).
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace gilsan::profile_fixtures {

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace gilsan::profile_fixtures
