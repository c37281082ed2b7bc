# Writes a C++ file holding docs/explain/*.md, so `gilsan explain` prints the very text of the docs.
# Usage: cmake -DINPUT_DIR=docs/explain -DOUTPUT=explanations.cpp -P embed_explanations.cmake
file(GLOB pages "${INPUT_DIR}/*.md")
list(SORT pages)
set(entries "")
foreach(page ${pages})
  get_filename_component(name "${page}" NAME_WLE)
  file(READ "${page}" text)
  if(text MATCHES "\\)gilsan_explain\"")
    message(FATAL_ERROR "${page}: contains the raw-string delimiter )gilsan_explain\"")
  endif()
  string(APPEND entries "    {\"${name}\", R\"gilsan_explain(${text})gilsan_explain\"},\n")
endforeach()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT_DIR} by harness/reports/embed_explanations.cmake; do not edit.
#include \"harness/reports/explanations.h\"

namespace gilsan {

const std::vector<Explanation>& explanations() {
  static const std::vector<Explanation> kAll = {
${entries}  };
  return kAll;
}

}  // namespace gilsan
")
