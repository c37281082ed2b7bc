#include "harness/probe/probe_run.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/probe/probe_case.h"

namespace gilsan::probe {
namespace {

CaseRequest request(const ProbeRunSettings& s, CaseKind kind, const std::string& subject, const std::string& label) {
  CaseSpec spec;
  spec.kind = kind;
  spec.subject = subject;
  spec.driver = s.driver;
  spec.timeouts = s.timeouts;
  spec.enqueue_limit = s.enqueue_limit;
  spec.runtime_library = s.runtime_library;
  return CaseRequest{label, case_arguments(spec), s.timeouts.case_limit};
}

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

}  // namespace

std::string nvidia_driver_version_from(const std::string& proc_version_text) {
  std::size_t at = proc_version_text.find("Kernel Module");
  if (at == std::string::npos) return {};
  std::istringstream words(proc_version_text.substr(at, proc_version_text.find('\n', at) - at));
  std::string word;
  while (words >> word) {
    bool digits_and_dots = word.find_first_not_of("0123456789.") == std::string::npos;
    if (digits_and_dots && word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0])))
      return word;
  }
  return {};
}

int default_jobs() {
  unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(cores) * 2, 2, 8);
}

DriverProfileOrigin read_origin(const DriverTable& driver, DriverKind kind) {
  DriverProfileOrigin origin;
  CUdevice device = 0;
  char name[256] = {};
  if (driver.cuDeviceGet(&device, 0) == CUDA_SUCCESS && driver.cuDeviceGetName(name, sizeof name, device) == CUDA_SUCCESS)
    origin.gpu = name;
  else
    origin.gpu = "unknown GPU";
  driver.cuDriverGetVersion(&origin.cuda_version);
  if (kind == DriverKind::Sim) {
    origin.driver_version =
        std::string("gilsan simulated driver (") + (driver.sim.profile_source ? driver.sim.profile_source() : "?") + ")";
  } else {
    std::ifstream proc("/proc/driver/nvidia/version");
    std::stringstream text;
    text << proc.rdbuf();
    origin.driver_version = nvidia_driver_version_from(text.str());
    if (origin.driver_version.empty())
      origin.driver_version = "CUDA " + std::to_string(origin.cuda_version / 1000) + "." +
                              std::to_string(origin.cuda_version % 1000 / 10) + " driver";
  }
  origin.date = today_utc();
  origin.method = "gilsan probe";
  return origin;
}

ProbeEvidence run_probe(const ProbeRunSettings& s, const std::function<void(const CaseResult&)>& on_done) {
  const auto started = std::chrono::steady_clock::now();
  const auto& recipes = call_recipes();
  const auto& intents = runtime_intents();

  // Topology first: its cases wait longest. Then each recipe's two cases.
  std::vector<CaseRequest> requests;
  for (const char* which : {kTopologyThreads, kTopologyEnqueueDepth, kTopologyCallbackContext})
    requests.push_back(request(s, CaseKind::Topology, which, std::string("topology ") + which));
  // Each recipe's two cases under lazy loading, then under EAGER.
  const std::size_t first_recipe = requests.size();
  for (ModuleLoading mode : module_loading_modes())
    for (const CallRecipe& recipe : recipes) {
      const std::string subject = call_case_subject(mode, recipe.id);
      requests.push_back(request(s, CaseKind::Inside, subject, "inside " + subject));
      requests.push_back(request(s, CaseKind::Outside, subject, "outside " + subject));
    }
  const std::size_t first_work = requests.size();
  // A runtime cell only where the runtime comparison runs: on the simulated driver no libcudart
  // reaches the driver, and the cell is left unmeasured rather than failed.
  std::vector<std::pair<ModuleLoading, const WorkCellRecipe*>> work_cells;
  for (ModuleLoading mode : module_loading_modes())
    for (const WorkCellRecipe& cell : work_cell_recipes()) {
      if (cell.cell->runtime_call && !s.compare_runtime) continue;
      const std::string subject = work_case_subject(mode, cell.cell->name);
      requests.push_back(request(s, CaseKind::Work, subject, "work " + subject));
      work_cells.emplace_back(mode, &cell);
    }
  const std::size_t first_runtime = requests.size();
  if (s.compare_runtime)
    for (const RuntimeIntent& intent : intents)
      requests.push_back(request(s, CaseKind::Runtime, intent.id, "runtime " + intent.id));

  std::vector<CaseResult> results = run_cases(s.self, requests, s.jobs, on_done);

  ProbeEvidence evidence;
  evidence.timeouts = s.timeouts;
  evidence.jobs = s.jobs;
  evidence.topology = interpret_topology_cases(results[0], results[2], results[1]);
  evidence.topology.enqueue_limit = s.enqueue_limit;
  // The call cases in request order: every recipe under lazy loading, then under EAGER.
  for (std::size_t i = 0; i < module_loading_modes().size() * recipes.size(); ++i) {
    const CallRecipe& recipe = recipes[i % recipes.size()];
    RecipeEvidence r;
    r.recipe = &recipe;
    r.inside = interpret_inside_case(recipe, results[first_recipe + 2 * i]);
    r.outside = interpret_outside_case(recipe, results[first_recipe + 2 * i + 1]);
    (module_loading_modes()[i / recipes.size()] == ModuleLoading::Lazy ? evidence.recipes : evidence.eager_recipes)
        .push_back(std::move(r));
  }
  for (std::size_t i = first_work; i < first_runtime; ++i) {
    const auto& [mode, cell] = work_cells[i - first_work];
    evidence.work.push_back({mode, cell, interpret_work_case(results[i])});
  }
  if (!s.compare_runtime) evidence.work_skipped_because = s.runtime_skipped_because;
  if (s.compare_runtime) {
    std::vector<CaseResult> runtime(results.begin() + static_cast<std::ptrdiff_t>(first_runtime), results.end());
    std::vector<const InsideOutcome*> driver;
    for (const RuntimeIntent& intent : intents) {
      const InsideOutcome* found = nullptr;
      for (const RecipeEvidence& r : evidence.recipes)
        if (r.recipe->id == intent.driver_recipe) found = &r.inside;
      driver.push_back(found);
    }
    evidence.runtime = compare_runtime_and_driver(runtime, driver);
  } else {
    evidence.runtime.note = s.runtime_skipped_because;
  }
  evidence.elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  return evidence;
}

}  // namespace gilsan::probe
