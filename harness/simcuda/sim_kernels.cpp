#include "harness/simcuda/sim_kernels.h"

#include <algorithm>
#include <cstring>

namespace gilsan::sim {
namespace {

const std::vector<BuiltinKernel>& builtin_kernels() {
  static const auto* kernels = new std::vector<BuiltinKernel>{
      {"gilsan_spin_ns", {8}},
      {"gilsan_fill_u32", {8, 4, 8}},
  };
  return *kernels;
}

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

template <typename T>
T read_at(const unsigned char* bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

void add_name(std::vector<std::string>& names, std::string name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.';
}

// `.entry NAME(` in PTX text.
void ptx_entries(std::string_view text, std::vector<std::string>& names) {
  constexpr std::string_view kEntry = ".entry";
  for (std::size_t at = text.find(kEntry); at != std::string_view::npos; at = text.find(kEntry, at + 1)) {
    std::size_t begin = at + kEntry.size();
    if (begin >= text.size() || (text[begin] != ' ' && text[begin] != '\t')) continue;
    while (begin < text.size() && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
    std::size_t end = begin;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    add_name(names, std::string(text.substr(begin, end - begin)));
  }
}

// Kernels of an ELF64 cubin are its `.text.NAME` sections. False when the ELF is cut short.
bool elf_entries(const unsigned char* elf, std::size_t available, std::vector<std::string>& names) {
  if (available < 64 || elf[4] != 2 /* ELFCLASS64 */) return false;
  const auto section_offset = read_at<std::uint64_t>(elf, 0x28);
  const auto entry_size = read_at<std::uint16_t>(elf, 0x3A);
  const auto section_count = read_at<std::uint16_t>(elf, 0x3C);
  const auto names_index = read_at<std::uint16_t>(elf, 0x3E);
  if (entry_size < 64 || names_index >= section_count ||
      section_offset + std::uint64_t{section_count} * entry_size > available)
    return false;
  const unsigned char* names_header = elf + section_offset + std::uint64_t{names_index} * entry_size;
  const auto strings_offset = read_at<std::uint64_t>(names_header, 0x18);
  const auto strings_size = read_at<std::uint64_t>(names_header, 0x20);
  if (strings_offset + strings_size > available) return false;
  std::string_view strings(reinterpret_cast<const char*>(elf + strings_offset), strings_size);
  for (std::uint16_t i = 0; i < section_count; ++i) {
    const auto name_offset = read_at<std::uint32_t>(elf + section_offset + std::uint64_t{i} * entry_size, 0);
    if (name_offset >= strings.size()) continue;
    std::string_view name = strings.substr(name_offset);
    name = name.substr(0, name.find('\0'));
    constexpr std::string_view kText = ".text.";
    if (name.substr(0, kText.size()) == kText) add_name(names, std::string(name.substr(kText.size())));
  }
  return true;
}

// A fatbin is a header and a sequence of entries (PTX or cubin); rather than parse each entry's header,
// look for the ELF images and uncompressed PTX text inside it. Compressed entries are not read.
void fatbin_entries(const unsigned char* fatbin, std::vector<std::string>& names) {
  const auto header_size = read_at<std::uint16_t>(fatbin, 6);
  const auto body_size = read_at<std::uint64_t>(fatbin, 8);
  const std::size_t total = header_size + body_size;
  std::string_view bytes(reinterpret_cast<const char*>(fatbin), total);
  for (std::size_t at = bytes.find("\x7f" "ELF"); at != std::string_view::npos; at = bytes.find("\x7f" "ELF", at + 1))
    elf_entries(fatbin + at, total - at, names);
  ptx_entries(bytes, names);
}

}  // namespace

const BuiltinKernel* find_builtin_kernel(std::string_view name) {
  for (const BuiltinKernel& kernel : builtin_kernels())
    if (kernel.name == name) return &kernel;
  return nullptr;
}

const BuiltinKernel& empty_kernel() {
  static const auto* kernel = new BuiltinKernel{"", {}};
  return *kernel;
}

bool kernel_names_in_image(const void* image, std::vector<std::string>& names) {
  names.clear();
  if (image == nullptr) return false;
  const auto* bytes = static_cast<const unsigned char*>(image);
  // Neither magic number has a zero byte, so a shorter string is text and is not read past its end.
  const bool has_magic_room = strnlen(static_cast<const char*>(image), 4) == 4;
  if (has_magic_room && read_at<std::uint32_t>(bytes, 0) == kFatbinMagic) {
    fatbin_entries(bytes, names);
    return true;
  }
  if (has_magic_room && std::memcmp(bytes, kElfMagic, sizeof kElfMagic) == 0) {
    // A cubin given alone carries its size in its section table; trust it as cuModuleLoadData does.
    const auto section_offset = read_at<std::uint64_t>(bytes, 0x28);
    const auto entry_size = read_at<std::uint16_t>(bytes, 0x3A);
    const auto section_count = read_at<std::uint16_t>(bytes, 0x3C);
    return elf_entries(bytes, section_offset + std::uint64_t{section_count} * entry_size, names);
  }
  std::string_view text(static_cast<const char*>(image));
  if (text.find(".version") == std::string_view::npos && text.find(".target") == std::string_view::npos) return false;
  ptx_entries(text, names);
  return true;
}

CUresult pack_kernel_arguments(const BuiltinKernel& kernel, void** kernel_params, void** extra, KernelRun& out) {
  out.kernel = &kernel;
  out.args = {};
  const auto& sizes = kernel.parameter_sizes;
  if (kernel_params != nullptr) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (kernel_params[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(&out.args[i], kernel_params[i], sizes[i]);
    }
    return CUDA_SUCCESS;
  }
  if (extra != nullptr) {
    const unsigned char* buffer = nullptr;
    std::size_t buffer_size = 0;
    for (std::size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const unsigned char*>(extra[i + 1]);
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) buffer_size = *static_cast<const std::size_t*>(extra[i + 1]);
      else return CUDA_ERROR_INVALID_VALUE;
    }
    // Parameters sit in the buffer at their natural alignment, as in a C struct.
    std::size_t offset = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      offset = (offset + sizes[i] - 1) / sizes[i] * sizes[i];
      if (buffer == nullptr || offset + sizes[i] > buffer_size) return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(&out.args[i], buffer + offset, sizes[i]);
      offset += sizes[i];
    }
    return CUDA_SUCCESS;
  }
  return sizes.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // namespace gilsan::sim
