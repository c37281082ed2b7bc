#include "harness/profile/driver_profile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/driver/driver_entry_points.h"
#include "harness/profile/absent_entry_points.h"
#include "harness/profile/profile_source_text.h"
#include "harness/text/printable.h"

namespace gilsan {
namespace {

using nlohmann::json;

const std::map<std::string, InsideBehaviour>& inside_names() {
  static const std::map<std::string, InsideBehaviour> names = {
      {"allowed", InsideBehaviour::Allowed},
      {"not-permitted", InsideBehaviour::NotPermitted},
      {"hangs", InsideBehaviour::Hangs}};
  return names;
}

const std::map<std::string, OutsideBehaviour>& outside_names() {
  static const std::map<std::string, OutsideBehaviour> names = {{"returns", OutsideBehaviour::Returns},
                                                                {"blocks", OutsideBehaviour::Blocks}};
  return names;
}

const std::map<std::string, CallbackThreadScope>& scope_names() {
  static const std::map<std::string, CallbackThreadScope> names = {{"per-context", CallbackThreadScope::PerContext},
                                                                  {"per-device", CallbackThreadScope::PerDevice},
                                                                  {"per-process", CallbackThreadScope::PerProcess}};
  return names;
}

template <typename Enum>
std::string allowed_values(const std::map<std::string, Enum>& names) {
  std::string out;
  for (const auto& [name, value] : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void require_only_keys(const ProfileSourceText& src, const json& object, std::string_view where,
                       const std::set<std::string>& known) {
  for (const auto& [key, value] : object.items()) {
    if (!known.contains(key)) src.fail_at_key(where, key, "unknown key '" + key + "' in " + std::string(where));
  }
}

const json& require_key(const ProfileSourceText& src, const json& object, std::string_view where, const char* key,
                        json::value_t type) {
  auto it = object.find(key);
  if (it == object.end()) src.fail_at_key(where, "", "missing key '" + std::string(key) + "' in " + std::string(where));
  bool ok = it->type() == type ||
            (type == json::value_t::number_integer && it->type() == json::value_t::number_unsigned);
  if (!ok) src.fail_at_key(where, key, "key '" + std::string(key) + "' in " + std::string(where) + " has the wrong type");
  return *it;
}

template <typename Enum>
std::map<std::string, Enum> parse_behaviour_table(const ProfileSourceText& src, const json& root, const std::string& section,
                                                  const std::map<std::string, Enum>& names) {
  const json& table = require_key(src, root, "profile", section.c_str(), json::value_t::object);
  const auto& entries = profiled_entry_points();
  std::set<std::string> known(entries.begin(), entries.end());
  std::map<std::string, Enum> out;
  for (const auto& item : table.items()) {
    const std::string& key = item.key();
    if (!known.contains(key)) src.fail_at_key(section, key, "unknown entry point '" + key + "' in " + section);
    const std::string value = item.value().is_string() ? item.value().template get<std::string>() : std::string();
    if (!names.contains(value))
      src.fail_at_key(section, key, section + "." + key + " must be one of: " + allowed_values(names));
    out.emplace(key, names.at(value));
  }
  // Entry points it lacks are unmeasured or an error, decided over both tables (complete_call_tables).
  return out;
}

constexpr const char* kEnqueuedWorkKey = "enqueued_work_while_host_function_runs";
constexpr const char* kEagerOverridesKey = "eager_call_overrides";

// One table of eager_call_overrides: only the entry points whose EAGER answer differs, so none is
// required; an entry point that is not profiled is an error, as in the full tables.
template <typename Enum>
std::map<std::string, Enum> parse_override_table(const ProfileSourceText& src, const json& overrides, const std::string& table,
                                                 const std::map<std::string, Enum>& names) {
  const std::string where = std::string(kEagerOverridesKey) + "." + table;
  const json& entries = require_key(src, overrides, kEagerOverridesKey, table.c_str(), json::value_t::object);
  const auto& profiled = profiled_entry_points();
  std::map<std::string, Enum> out;
  for (const auto& [entry, value] : entries.items()) {
    // Found by its path (ProfileSourceText): the top-level tables list every entry point too.
    if (std::find(profiled.begin(), profiled.end(), entry) == profiled.end())
      src.fail_at_key(where, entry, "unknown entry point '" + entry + "' in " + where);
    const std::string text = value.is_string() ? value.template get<std::string>() : std::string();
    if (!names.contains(text))
      src.fail_at_key(where, entry, where + "." + entry + " must be one of: " + allowed_values(names));
    out.emplace(entry, names.at(text));
  }
  return out;
}

CallTableOverrides parse_eager_overrides(const ProfileSourceText& src, const json& overrides) {
  require_only_keys(src, overrides, kEagerOverridesKey, {"inside_host_function", "while_host_function_runs"});
  return {parse_override_table(src, overrides, "inside_host_function", inside_names()),
          parse_override_table(src, overrides, "while_host_function_runs", outside_names())};
}

// {"lazy": {CELL: BEHAVIOUR, ...}, "eager": {...}}: both modes, every cell of each.
std::map<ModuleLoading, EnqueuedWorkTable> parse_enqueued_work(const ProfileSourceText& src, const json& root) {
  const std::string section = kEnqueuedWorkKey;
  const json& modes = require_key(src, root, "profile", kEnqueuedWorkKey, json::value_t::object);
  std::map<ModuleLoading, EnqueuedWorkTable> out;
  for (const auto& [mode_name, table] : modes.items()) {
    const std::optional<ModuleLoading> mode = module_loading_named(mode_name);
    if (!mode) src.fail_at_key(section, mode_name, "unknown loading mode '" + mode_name + "' in " + section + " (lazy, eager)");
    if (!table.is_object()) src.fail_at_key(section, mode_name, section + "." + mode_name + " must be an object");
    const std::string where = section + "." + mode_name;
    EnqueuedWorkTable& cells = out[*mode];
    for (const auto& [cell, value] : table.items()) {
      // The quoted mode names occur only as keys of this table, so they anchor the cell's line.
      if (find_enqueued_work_cell(cell) == nullptr) src.fail_at_key(where, cell, "unknown cell '" + cell + "' in " + where);
      const std::optional<WorkBehaviour> behaviour =
          value.is_string() ? work_behaviour_named(value.get<std::string>()) : std::nullopt;
      if (!behaviour) src.fail_at_key(where, cell, where + "." + cell + " must be one of: proceeds, work-waits, call-blocks");
      cells[cell] = *behaviour;
    }
    for (const auto& cell : enqueued_work_cells())
      if (!cells.contains(cell.name) && !cell.runtime_call)
        src.fail_at_key(section, mode_name, "missing cell '" + cell.name + "' in " + where);
  }
  for (ModuleLoading mode : module_loading_modes())
    if (!out.contains(mode)) src.fail_at_key(section, "", "missing loading mode '" + std::string(to_string(mode)) + "' in " + section);
  return out;
}

template <typename Enum>
const char* name_of(const std::map<std::string, Enum>& names, Enum value) {
  for (const auto& [name, v] : names)
    if (v == value) return name.c_str();
  return "?";
}

}  // namespace

const std::vector<std::string>& profiled_entry_points() {
  static const std::vector<std::string> entries = [] {
    std::vector<std::string> all = {
#define GILSAN_PROFILE_ENTRY(name) #name,
        GILSAN_DRIVER_ENTRY_POINTS(GILSAN_PROFILE_ENTRY)
#undef GILSAN_PROFILE_ENTRY
    };
    std::erase_if(all, [](const std::string& n) { return n == "cuGetErrorName" || n == "cuGetErrorString"; });
    return all;
  }();
  return entries;
}

InsideBehaviour DriverProfile::inside(std::string_view entry_point) const {
  auto it = inside_host_function.find(std::string(entry_point));
  if (it == inside_host_function.end())
    throw std::out_of_range("driver profile has no inside_host_function entry for " + std::string(entry_point));
  return it->second;
}

WorkBehaviour DriverProfile::work(ModuleLoading mode, std::string_view cell) const {
  auto table = enqueued_work.find(mode);
  auto it = table == enqueued_work.end() ? EnqueuedWorkTable::const_iterator() : table->second.find(std::string(cell));
  if (table == enqueued_work.end() || it == table->second.end())
    throw std::out_of_range("driver profile has no enqueued_work_while_host_function_runs." +
                            std::string(to_string(mode)) + " entry for " + std::string(cell));
  return it->second;
}

std::map<ModuleLoading, EnqueuedWorkTable> enqueued_work_from_calls(
    const std::map<std::string, OutsideBehaviour>& while_host_function_runs, const DriverProfileTopology& topology) {
  std::map<std::string, bool> blocks;
  for (const auto& [entry, behaviour] : while_host_function_runs) blocks[entry] = behaviour == OutsideBehaviour::Blocks;
  std::map<ModuleLoading, EnqueuedWorkTable> out;
  for (ModuleLoading mode : module_loading_modes())
    out[mode] = enqueued_work_from_calls(blocks, topology.serialized_across_streams);
  return out;
}

OutsideBehaviour DriverProfile::outside(std::string_view entry_point) const {
  auto it = while_host_function_runs.find(std::string(entry_point));
  if (it == while_host_function_runs.end())
    throw std::out_of_range("driver profile has no while_host_function_runs entry for " + std::string(entry_point));
  return it->second;
}

bool DriverProfile::same_behaviour(const DriverProfile& other) const {
  return topology.callback_thread == other.topology.callback_thread &&
         topology.serialized_across_streams == other.topology.serialized_across_streams &&
         topology.enqueue_blocks_at_depth == other.topology.enqueue_blocks_at_depth &&
         inside_host_function == other.inside_host_function &&
         while_host_function_runs == other.while_host_function_runs && enqueued_work == other.enqueued_work &&
         eager_overrides() == other.eager_overrides();
}

DriverProfile parse_driver_profile(std::string_view json_text, const std::string& source) {
  ProfileSourceText src(json_text, source);
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& error) {
    src.fail_at_offset(error.byte == 0 ? 0 : error.byte - 1, "not valid JSON: " + std::string(error.what()));
  } catch (const json::exception& error) {
    // A number no JSON number type holds (out_of_range.406, found by fuzzing) comes without a position;
    // its message quotes the number, so the number is looked up to name its line.
    const std::string message = error.what();
    const auto open = message.find('\'');
    const auto close = message.rfind('\'');
    const std::string token = open != std::string::npos && close > open ? message.substr(open + 1, close - open - 1) : "";
    const auto at = token.empty() ? std::string_view::npos : json_text.find(token);
    src.fail_at_offset(at == std::string_view::npos ? 0 : at, "not valid JSON: " + message);
  }
  if (!root.is_object()) src.fail_at_offset(0, "a driver profile is a JSON object");
  const json& schema = require_key(src, root, "profile", "schema", json::value_t::string);
  const bool version_1 = schema.get<std::string>() == kDriverProfileSchemaV1;
  if (!version_1 && schema.get<std::string>() != kDriverProfileSchema)
    src.fail_at_key("", "schema", "schema is '" + schema.get<std::string>() + "', expected '" + kDriverProfileSchema +
                                      "' (or '" + kDriverProfileSchemaV1 + "')");
  std::set<std::string> known_keys = {"schema", "origin", "topology", "inside_host_function", "while_host_function_runs",
                                      "unmeasured"};
  if (!version_1) known_keys.insert({kEnqueuedWorkKey, kEagerOverridesKey});
  require_only_keys(src, root, "profile", known_keys);

  DriverProfile profile;
  const json& origin = require_key(src, root, "profile", "origin", json::value_t::object);
  require_only_keys(src, origin, "origin", {"gpu", "driver_version", "cuda_version", "date", "method"});
  profile.origin.gpu = require_key(src, origin, "origin", "gpu", json::value_t::string).get<std::string>();
  profile.origin.driver_version =
      require_key(src, origin, "origin", "driver_version", json::value_t::string).get<std::string>();
  profile.origin.cuda_version =
      require_key(src, origin, "origin", "cuda_version", json::value_t::number_integer).get<int>();
  profile.origin.date = require_key(src, origin, "origin", "date", json::value_t::string).get<std::string>();
  profile.origin.method = require_key(src, origin, "origin", "method", json::value_t::string).get<std::string>();

  const json& topology = require_key(src, root, "profile", "topology", json::value_t::object);
  require_only_keys(src, topology, "topology", {"callback_thread", "serialized_across_streams", "enqueue_blocks_at_depth"});
  const std::string scope =
      require_key(src, topology, "topology", "callback_thread", json::value_t::string).get<std::string>();
  if (!scope_names().contains(scope))
    src.fail_at_key("topology", "callback_thread", "topology.callback_thread must be one of: " + allowed_values(scope_names()));
  profile.topology.callback_thread = scope_names().at(scope);
  profile.topology.serialized_across_streams =
      require_key(src, topology, "topology", "serialized_across_streams", json::value_t::boolean).get<bool>();
  auto depth = topology.find("enqueue_blocks_at_depth");
  if (depth == topology.end()) src.fail_at_key("topology", "", "missing key 'enqueue_blocks_at_depth' in topology");
  if (depth->is_null()) {
    profile.topology.enqueue_blocks_at_depth.reset();
  } else if (depth->is_number_integer() && depth->get<long long>() > 0 && depth->get<long long>() < (1 << 30)) {
    profile.topology.enqueue_blocks_at_depth = depth->get<int>();
  } else {
    src.fail_at_key("topology", "enqueue_blocks_at_depth", "topology.enqueue_blocks_at_depth must be null or a positive integer");
  }

  profile.inside_host_function = parse_behaviour_table(src, root, "inside_host_function", inside_names());
  profile.while_host_function_runs = parse_behaviour_table(src, root, "while_host_function_runs", outside_names());
  // Before anything is derived from the tables: what is derived from an unmeasured answer is too.
  complete_call_tables(src, profile);
  profile.enqueued_work = version_1 ? enqueued_work_from_calls(profile.while_host_function_runs, profile.topology)
                                    : parse_enqueued_work(src, root);
  // A runtime cell a /2 profile lacks (written before it existed) is read as /1 reads every cell.
  std::vector<std::string> derived_cells;
  const auto derived = enqueued_work_from_calls(profile.while_host_function_runs, profile.topology);
  for (auto& [mode, cells] : profile.enqueued_work)
    for (const auto& cell : enqueued_work_cells())
      if (!version_1 && cell.runtime_call && !cells.contains(cell.name)) {
        cells[cell.name] = derived.at(mode).at(cell.name);
        derived_cells.push_back(std::string(kEnqueuedWorkKey) + "." + to_string(mode) + "." + cell.name);
      }
  if (auto overrides = root.find(kEagerOverridesKey); overrides != root.end()) {
    if (!overrides->is_object()) src.fail_at_key("", kEagerOverridesKey, std::string(kEagerOverridesKey) + " must be an object");
    profile.eager_call_overrides = parse_eager_overrides(src, *overrides);
  }

  if (auto it = root.find("unmeasured"); it != root.end()) {
    if (!it->is_array()) src.fail_at_key("", "unmeasured", "unmeasured must be a list of \"table.entry\" strings");
    for (const json& cell : *it) {
      const std::string text = cell.is_string() ? cell.get<std::string>() : std::string();
      auto dot = text.find('.');
      bool known_table = dot != std::string::npos &&
                         (text.substr(0, dot) == "inside_host_function" || text.substr(0, dot) == "while_host_function_runs" ||
                          text.substr(0, dot) == "topology" || text.substr(0, dot) == kEnqueuedWorkKey ||
                          text.substr(0, dot) == kEagerOverridesKey);
      if (!known_table) src.fail_at_key("unmeasured", text, "unmeasured entry '" + text + "' is not \"table.entry\"");
      profile.unmeasured.push_back(text);
    }
  }
  // After the file's own list, with the derived runtime cells: those of the entry points it lacks.
  for (const std::string& cell : absent_entry_point_cells(profile)) derived_cells.push_back(cell);
  for (const std::string& cell : derived_cells)
    if (std::find(profile.unmeasured.begin(), profile.unmeasured.end(), cell) == profile.unmeasured.end())
      profile.unmeasured.push_back(cell);
  // A /1 profile never measured the enqueued-work table: every cell of it is an assumption.
  if (version_1)
    for (const auto& [mode, table] : profile.enqueued_work)
      for (const auto& [cell, behaviour] : table)
        profile.unmeasured.push_back(std::string(kEnqueuedWorkKey) + "." + to_string(mode) + "." + cell);
  return profile;
}

DriverProfile load_driver_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DriverProfileError(printable(path) + ":1: cannot open driver profile");
  std::stringstream buffer;
  buffer << in.rdbuf();
  DriverProfile profile = parse_driver_profile(buffer.str(), path);
  warn_about_absent_entry_points(profile, path);
  return profile;
}

std::string to_json(const DriverProfile& profile) {
  json root;
  root["schema"] = kDriverProfileSchema;
  root["origin"] = {{"gpu", profile.origin.gpu},
                    {"driver_version", profile.origin.driver_version},
                    {"cuda_version", profile.origin.cuda_version},
                    {"date", profile.origin.date},
                    {"method", profile.origin.method}};
  root["topology"] = {{"callback_thread", to_string(profile.topology.callback_thread)},
                      {"serialized_across_streams", profile.topology.serialized_across_streams},
                      {"enqueue_blocks_at_depth", profile.topology.enqueue_blocks_at_depth
                                                      ? json(*profile.topology.enqueue_blocks_at_depth)
                                                      : json(nullptr)}};
  for (const auto& [entry, behaviour] : profile.inside_host_function)
    root["inside_host_function"][entry] = to_string(behaviour);
  for (const auto& [entry, behaviour] : profile.while_host_function_runs)
    root["while_host_function_runs"][entry] = to_string(behaviour);
  for (const auto& [mode, table] : profile.enqueued_work)
    for (const auto& [cell, behaviour] : table) root[kEnqueuedWorkKey][to_string(mode)][cell] = to_string(behaviour);
  if (const auto& overrides = profile.eager_call_overrides) {
    // Both tables, empty or not: the key says the EAGER call tables were measured.
    json& out = root[kEagerOverridesKey];
    out["inside_host_function"] = json::object();
    out["while_host_function_runs"] = json::object();
    for (const auto& [entry, behaviour] : overrides->inside_host_function) out["inside_host_function"][entry] = to_string(behaviour);
    for (const auto& [entry, behaviour] : overrides->while_host_function_runs)
      out["while_host_function_runs"][entry] = to_string(behaviour);
  }
  root["unmeasured"] = profile.unmeasured;
  return root.dump(2) + "\n";
}

const char* to_string(InsideBehaviour behaviour) { return name_of(inside_names(), behaviour); }
const char* to_string(OutsideBehaviour behaviour) { return name_of(outside_names(), behaviour); }
const char* to_string(CallbackThreadScope scope) { return name_of(scope_names(), scope); }

}  // namespace gilsan
