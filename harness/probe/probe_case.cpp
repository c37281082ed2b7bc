#include "harness/probe/probe_case.h"

#include <sstream>
#include <stdexcept>

#include "harness/probe/call_recipe.h"
#include "harness/probe/case_process.h"
#include "harness/probe/inside_matrix.h"
#include "harness/probe/outside_matrix.h"
#include "harness/probe/runtime_comparison.h"
#include "harness/probe/runtime_first_launch.h"
#include "harness/probe/topology_probe.h"
#include "harness/probe/work_matrix.h"

namespace gilsan::probe {
namespace {

const char* kind_name(CaseKind kind) {
  switch (kind) {
    case CaseKind::Outside: return "outside";
    case CaseKind::Inside: return "inside";
    case CaseKind::Topology: return "topology";
    case CaseKind::Runtime: return "runtime";
    case CaseKind::Work: return "work";
  }
  return "?";
}

CaseKind parse_kind(const std::string& text) {
  for (CaseKind kind : {CaseKind::Outside, CaseKind::Inside, CaseKind::Topology, CaseKind::Runtime, CaseKind::Work})
    if (text == kind_name(kind)) return kind;
  throw std::invalid_argument("unknown probe case kind '" + text + "'");
}

std::string join_timeouts(const ProbeTimeouts& t) {
  std::ostringstream out;
  out << t.outside_hold.count() << ',' << t.inside_hang.count() << ',' << t.enqueue_stall.count() << ','
      << t.concurrency_window.count() << ',' << t.gate_work.count() << ',' << t.case_limit.count();
  return out.str();
}

ProbeTimeouts split_timeouts(const std::string& text) {
  std::vector<long long> values;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stoll(item));
  if (values.size() != 6) throw std::invalid_argument("malformed probe timeouts '" + text + "'");
  ProbeTimeouts t;
  t.outside_hold = Milliseconds(values[0]);
  t.inside_hang = Milliseconds(values[1]);
  t.enqueue_stall = Milliseconds(values[2]);
  t.concurrency_window = Milliseconds(values[3]);
  t.gate_work = Milliseconds(values[4]);
  t.case_limit = Milliseconds(values[5]);
  return t;
}

const CallRecipe& recipe_named(const std::string& id) {
  const CallRecipe* recipe = find_recipe(id);
  if (recipe == nullptr) throw std::invalid_argument("unknown probe recipe '" + id + "'");
  return *recipe;
}

void run_case(const CaseSpec& spec, const CaseReporter& reporter) {
  if (spec.kind == CaseKind::Runtime)
    return run_runtime_case(spec.subject, spec.runtime_library, spec.timeouts, reporter);
  // Every case chooses its loading mode, whatever the probe's own environment says: the topology runs
  // under lazy loading, the driver's default; the call matrices and the enqueued-work matrix under
  // the mode their subject names.
  const bool call_case = spec.kind == CaseKind::Outside || spec.kind == CaseKind::Inside;
  const CallCaseSubject call = call_case ? parse_call_case_subject(spec.subject) : CallCaseSubject{};
  const WorkCaseSubject work = spec.kind == CaseKind::Work ? parse_work_case_subject(spec.subject) : WorkCaseSubject{};
  select_module_loading(call_case ? call.mode : work.mode);
  DriverChoice choice = open_driver(spec.driver == DriverKind::Real ? DriverRequest::Real : DriverRequest::Sim);
  ProbeFixture fixture(*choice.table);
  switch (spec.kind) {
    case CaseKind::Outside: return run_outside_case(fixture, recipe_named(call.recipe_id), spec.timeouts, reporter);
    case CaseKind::Inside: return run_inside_case(fixture, recipe_named(call.recipe_id), spec.timeouts, reporter);
    case CaseKind::Topology:
      return run_topology_case(spec.subject, fixture, spec.timeouts, spec.enqueue_limit, reporter);
    case CaseKind::Work:
      use_runtime_library(spec.runtime_library);
      return run_work_case(fixture, *work.cell->recipe, spec.timeouts, reporter);
    case CaseKind::Runtime: break;
  }
}

}  // namespace

std::string call_case_subject(ModuleLoading mode, const std::string& recipe_id) {
  return mode == ModuleLoading::Lazy ? recipe_id : std::string(to_string(mode)) + "/" + recipe_id;
}

CallCaseSubject parse_call_case_subject(const std::string& subject) {
  // Recipe ids never contain '/' ("name" or "name#variant").
  const auto slash = subject.find('/');
  if (slash == std::string::npos) return {ModuleLoading::Lazy, subject};
  const std::optional<ModuleLoading> mode = module_loading_named(subject.substr(0, slash));
  if (!mode) throw std::invalid_argument("unknown loading mode in probe case '" + subject + "'");
  return {*mode, subject.substr(slash + 1)};
}

std::vector<std::string> case_arguments(const CaseSpec& spec) {
  return {kCaseArgument,
          kind_name(spec.kind),
          spec.subject,
          "--probe-driver",
          to_string(spec.driver),
          "--probe-timeouts",
          join_timeouts(spec.timeouts),
          "--probe-enqueue-limit",
          std::to_string(spec.enqueue_limit),
          "--probe-runtime",
          spec.runtime_library.empty() ? "-" : spec.runtime_library};
}

bool is_case_invocation(const std::vector<std::string>& arguments) {
  return !arguments.empty() && arguments.front() == kCaseArgument;
}

CaseSpec parse_case_arguments(const std::vector<std::string>& a) {
  if (a.size() != 11 || a[0] != kCaseArgument || a[3] != "--probe-driver" || a[5] != "--probe-timeouts" ||
      a[7] != "--probe-enqueue-limit" || a[9] != "--probe-runtime")
    throw std::invalid_argument("malformed probe case arguments");
  CaseSpec spec;
  spec.kind = parse_kind(a[1]);
  spec.subject = a[2];
  if (a[4] != "real" && a[4] != "sim") throw std::invalid_argument("probe case driver must be real or sim");
  spec.driver = a[4] == "real" ? DriverKind::Real : DriverKind::Sim;
  spec.timeouts = split_timeouts(a[6]);
  spec.enqueue_limit = std::stoi(a[8]);
  spec.runtime_library = a[10] == "-" ? "" : a[10];
  return spec;
}

int run_case_child(const std::vector<std::string>& arguments) {
  CaseReporter reporter(kCaseReportFd);
  try {
    run_case(parse_case_arguments(arguments), reporter);
  } catch (const SetupFailure& failure) {
    reporter.line(key::kSetupFailed, {failure.code_name(), failure.step()});
  } catch (const std::exception& error) {
    reporter.line(key::kSetupFailed, {"exception", error.what()});
  }
  return 0;
}

}  // namespace gilsan::probe
