#include "harness/probe/probe_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <system_error>

#include "harness/probe/held_host_function.h"
#include "harness/probe/probe_case.h"
#include "harness/probe/probe_markdown.h"
#include "harness/probe/probe_options.h"
#include "harness/probe/probe_run.h"
#include "harness/probe/profile_assembly.h"
#include "harness/probe/profile_diff.h"
#include "harness/profile/absent_entry_points.h"

namespace gilsan::probe {
namespace {

int fail(int code, const std::string& message) {
  std::cerr << "gilsan probe: " << message << "\n";
  return code;
}

int run_diff(const std::string& a, const std::string& b) {
  DriverProfile before;
  DriverProfile after;
  try {
    before = load_driver_profile(a);
    after = load_driver_profile(b);
  } catch (const DriverProfileError& error) {
    return fail(kExitBadInput, error.what());
  }
  std::vector<std::string> changes = diff_profiles(before, after);
  for (const std::string& change : changes) std::cout << change << "\n";
  std::cout.flush();
  return changes.empty() ? kExitOk : kExitDifferent;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::system_error(errno, std::generic_category(), "cannot write '" + path + "'");
}

// The simulated driver reads its configuration from the environment at cuInit, in this process and
// in every case child; it is set here, once, before any thread or driver exists.
void configure_simulated_driver(const ProbeOptions& options) {
  // The cases are this binary re-executed: they read the held host function's kind from here too.
  ::setenv(std::string(kHeldByVariable).c_str(), options.held_by.c_str(), 1);  // NOLINT(concurrency-mt-unsafe): no thread yet
  if (options.profile) {
    ::setenv("GILSAN_SIM_PROFILE", options.profile->c_str(), 1);  // NOLINT(concurrency-mt-unsafe): no thread yet
    // run_probe read it first and said what it lacks: the cases need not say it again, each in its log.
    ::setenv(kProfileWarnedVariable, options.profile->c_str(), 1);  // NOLINT(concurrency-mt-unsafe): no thread yet
  } else {
    // Only --profile chooses, never a stale shell variable.
    ::unsetenv("GILSAN_SIM_PROFILE");  // NOLINT(concurrency-mt-unsafe): no thread yet
    ::unsetenv(kProfileWarnedVariable);  // NOLINT(concurrency-mt-unsafe): no thread yet
  }
}

int run_probe(const ProbeOptions& options, const std::vector<std::string>& arguments) {
  std::unique_ptr<DriverProfile> carry_over;
  if (options.profile) {
    try {
      carry_over = std::make_unique<DriverProfile>(load_driver_profile(*options.profile));
    } catch (const DriverProfileError& error) {
      return fail(kExitBadInput, error.what());
    }
  }
  double scale = 1.0;
  try {
    scale = time_scale_from_environment();
  } catch (const std::invalid_argument& error) {
    return fail(kExitBadInput, error.what());
  }
  configure_simulated_driver(options);

  DriverChoice choice;
  try {
    choice = open_driver(options.driver);
  } catch (const DriverLoadError& error) {
    return fail(kExitNoDriver, error.what());
  }

  ProbeRunSettings settings;
  settings.driver = choice.kind;
  settings.timeouts = default_timeouts(choice.kind, scale);
  settings.jobs = options.jobs.value_or(default_jobs());
  settings.enqueue_limit = options.enqueue_limit;
  settings.runtime_library = options.cudart.value_or("");
  settings.compare_runtime = choice.kind == DriverKind::Real || options.cudart.has_value();
  if (!settings.compare_runtime)
    settings.runtime_skipped_because = "libcudart talks to libcuda.so.1, not to the simulated driver "
                                       "(--cudart PATH forces a runtime that reaches it)";
  try {
    settings.self = self_command(arguments);
  } catch (const std::runtime_error& error) {
    return fail(kExitProbeFailed, error.what());
  }
  // With two simulated devices the probe can tell a per-device callback thread from a per-process one.
  std::map<std::string, std::string> child_environment;
  if (choice.kind == DriverKind::Sim && std::getenv("GILSAN_SIM_DEVICES") == nullptr)
    child_environment["GILSAN_SIM_DEVICES"] = "2";
  settings.self.environment = environment_with(child_environment, {});

  std::cerr << "gilsan probe: " << choice.reason << "; " << call_recipes().size() << " recipes, "
            << settings.jobs << " cases at a time\n";
  ProbeEvidence evidence;
  try {
    evidence = run_probe(settings, [](const CaseResult& result) {
      // A case's own output (a sanitizer report, a driver message) belongs in the probe's log.
      if (!result.output.empty()) std::cerr << "[" << result.label << "] " << result.output
                                            << (result.output.back() == '\n' ? "" : "\n");
    });
  } catch (const std::system_error& error) {
    return fail(kExitProbeFailed, error.what());
  }
  evidence.origin = read_origin(*choice.table, choice.kind);
  // A profile measured with another kind of held host function says so where it says how it was made.
  if (options.held_by != "launch-host-func") evidence.origin.method += " --held-by " + options.held_by;
  evidence.driver_choice = choice.reason;
  evidence.driver_library = choice.table->library_path();
  if (choice.kind == DriverKind::Sim)
    evidence.simulated_profile = choice.table->sim.profile_source ? choice.table->sim.profile_source() : "";
  if (options.profile) evidence.carried_over_from = *options.profile;

  AssembledProfile assembled = assemble_profile(evidence, carry_over.get());
  try {
    if (options.output) {
      write_file(*options.output, to_json(assembled.profile));
    } else {
      std::cout << to_json(assembled.profile);
      std::cout.flush();
    }
    if (options.markdown) write_file(*options.markdown, render_markdown(evidence, assembled));
  } catch (const std::system_error& error) {
    return fail(kExitProbeFailed, error.what());
  }
  std::cerr << "gilsan probe: done in " << evidence.elapsed.count() << " ms; " << assembled.profile.unmeasured.size()
            << " cell(s) not measured\n";
  return kExitOk;
}

}  // namespace

int run_probe_command(const std::vector<std::string>& arguments) {
  if (is_case_invocation(arguments)) {
    // A case child: its driver may still have threads inside host functions (a hang being measured,
    // a held host function), so it ends without running destructors under them.
    int status = run_case_child(arguments);
    std::fflush(nullptr);
    ::_exit(status);
  }
  ProbeOptions options;
  try {
    options = parse_probe_options(arguments);
  } catch (const UsageError& error) {
    // One line, as every gilsan command says a usage error; the usage is one --help away.
    std::cerr << "gilsan probe: " << error.what() << " (see gilsan probe --help)\n";
    return kExitBadInput;
  }
  if (options.help) {
    std::cout << kProbeUsage;
    return kExitOk;
  }
  if (options.diff) return run_diff(options.diff->first, options.diff->second);
  return run_probe(options, arguments);
}

}  // namespace gilsan::probe
