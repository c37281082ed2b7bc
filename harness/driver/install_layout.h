#ifndef GILSAN_HARNESS_DRIVER_INSTALL_LAYOUT_H
#define GILSAN_HARNESS_DRIVER_INSTALL_LAYOUT_H

#include <string>
#include <string_view>

namespace gilsan {

// Where an installed gilsan keeps its pieces (docs/installing.md). An installed tree must work
// wherever its prefix was copied to, so nothing is looked up by the absolute install prefix: the
// prefix is the folder above the bin/, lib/ or lib/gilsan/python/ folder of the binary (executable or
// shared library) that contains this code, found with dladdr (the executable through /proc/self/exe).
//
// The path of PREFIX/relative for the binary that contains this code when that file exists, else an
// empty string (a build tree has no such file, so the build-tree defaults apply there).
// relative is one of the kInstalled* paths below, or a file under one of them.
// Cost: a dladdr and a few stat calls; call it when choosing a path, not per event.
std::string installed_file(std::string_view relative);

// installed_file(relative) when the installed tree has it, else build_tree_path (an absolute path
// compiled in, which exists only while the build or source tree does).
std::string installed_or(std::string_view relative, std::string build_tree_path);

// The installed copy of a shipped profile, known in the build by its source path: the same file name
// under share/gilsan/profiles, else the source path itself.
std::string shipped_profile_path(const std::string& source_path);

// The folders below the prefix, as the install rules lay them out (GNUInstallDirs names).
std::string installed_library_folder();  // e.g. "lib"
std::string installed_data_folder();     // e.g. "share/gilsan"

}  // namespace gilsan

#endif
