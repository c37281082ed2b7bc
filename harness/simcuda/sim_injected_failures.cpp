#include "harness/simcuda/sim_injected_failures.h"

#include <charconv>
#include <stdexcept>
#include <string>

#include "harness/simcuda/sim_errors.h"
#include "harness/text/printable.h"

namespace gilsan::sim {
namespace {

constexpr int kLargestCuresult = 1000;  // cuda.h's values end at 999 (CUDA_ERROR_UNKNOWN)

std::string_view next_item(std::string_view& text, char separator) {
  const auto at = text.find(separator);
  const std::string_view item = text.substr(0, at);
  text.remove_prefix(at == std::string_view::npos ? text.size() : at + 1);
  return item;
}

unsigned long long whole_number(std::string_view text, std::string_view what) {
  unsigned long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(std::string(what) + " must be a whole number, not '" + printable(text) + "'");
  return value;
}

CUresult result_named(std::string_view text) {
  if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
    const unsigned long long value = whole_number(text, "a CUresult");
    if (value == 0 || value > kLargestCuresult || error_name(static_cast<CUresult>(value)) == nullptr)
      throw std::invalid_argument("'" + printable(text) + "' is no failing CUresult of cuda.h");
    return static_cast<CUresult>(value);
  }
  for (int value = 1; value <= kLargestCuresult; ++value) {
    const char* name = error_name(static_cast<CUresult>(value));
    if (name != nullptr && text == name) return static_cast<CUresult>(value);
  }
  throw std::invalid_argument("'" + printable(text) + "' is no failing CUresult of cuda.h");
}

std::size_t entry_named(std::string_view text) {
  for (std::size_t i = 0; i < kEntryPointCount; ++i)
    if (kEntryPointNames[i] == text) return i;
  throw std::invalid_argument("'" + printable(text) + "' is not an entry point the simulated driver has");
}

}  // namespace

InjectedFailures InjectedFailures::parse(std::string_view text) {
  InjectedFailures failures;
  while (!text.empty()) {
    std::string_view item = next_item(text, ',');
    const std::string whole = printable(item);
    try {
      std::string_view assignment = next_item(item, ':');
      const auto equals = assignment.find('=');
      if (equals == std::string_view::npos) throw std::invalid_argument("expected ENTRY=RESULT");
      const std::size_t index = entry_named(assignment.substr(0, equals));
      if (failures.rules_[index]) throw std::invalid_argument("its entry point is named twice");
      auto rule = std::make_shared<Rule>();
      rule->result = result_named(assignment.substr(equals + 1));
      while (!item.empty()) {
        const std::string_view option = next_item(item, ':');
        if (option.starts_with("after=")) {
          rule->after = whole_number(option.substr(6), "after");
        } else if (option.starts_with("count=")) {
          rule->count = whole_number(option.substr(6), "count");
          if (rule->count == 0) throw std::invalid_argument("count must be at least 1 (leave it out for every call)");
        } else {
          throw std::invalid_argument("unknown option '" + printable(option) + "' (after=N, count=M)");
        }
      }
      failures.rules_[index] = std::move(rule);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument("GILSAN_SIM_FAIL item '" + whole + "': " + error.what());
    }
  }
  return failures;
}

CUresult InjectedFailures::next(EntryId entry) {
  Rule* rule = rules_[entry.index].get();
  if (rule == nullptr) return CUDA_SUCCESS;
  const unsigned long long call = rule->calls.fetch_add(1, std::memory_order_relaxed);
  if (call < rule->after) return CUDA_SUCCESS;
  if (rule->count != 0 && call - rule->after >= rule->count) return CUDA_SUCCESS;
  return rule->result;
}

}  // namespace gilsan::sim
