# Writes a C++ file holding a driver profile's text, so the simulated driver needs no file at run time.
# Usage: cmake -DINPUT=profile.json -DOUTPUT=sim_builtin_profile.cpp -P embed_profile.cmake
file(READ "${INPUT}" profile_text)
get_filename_component(profile_name "${INPUT}" NAME_WLE)
if(profile_text MATCHES "\\)gilsan_profile\"")
  message(FATAL_ERROR "${INPUT}: contains the raw-string delimiter )gilsan_profile\"")
endif()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by harness/simcuda/embed_profile.cmake; do not edit.
#include \"harness/simcuda/sim_builtin_profile.h\"

namespace gilsan::sim {

const char* const kBuiltinProfileName = \"${profile_name}\";
const char* const kBuiltinProfileText = R\"gilsan_profile(${profile_text})gilsan_profile\";

}  // namespace gilsan::sim
")
