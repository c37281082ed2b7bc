#include "harness/probe/probe_options.h"

#include <charconv>

namespace gilsan::probe {

const char* const kProbeUsage =
    "usage: gilsan probe [--driver auto|real|sim] [--profile IN] [-o PROFILE.json] [--markdown FILE]\n"
    "                    [--jobs N] [--enqueue-limit N] [--cudart PATH]\n"
    "                    [--held-by launch-host-func|stream-add-callback|graph-host-node]\n"
    "       gilsan probe --diff A.json B.json\n"
    "Measures what the driver blocks while a host function runs and what it allows inside one, and\n"
    "writes a driver profile (stdout without -o) and a Markdown report. --diff lists every cell that\n"
    "differs between two profiles: exit 0 when none, 1 when some, 2 on bad input. See docs/probe.md.\n";

namespace {

int positive_integer(const std::string& option, const std::string& text, int most) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 1 || value > most)
    throw UsageError(option + " expects an integer from 1 to " + std::to_string(most) + ", not '" + text + "'");
  return value;
}

}  // namespace

ProbeOptions parse_probe_options(const std::vector<std::string>& arguments) {
  ProbeOptions options;
  bool probe_option_seen = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    auto value = [&](const char* what) -> const std::string& {
      if (i + 1 >= arguments.size()) throw UsageError(argument + " needs " + what);
      return arguments[++i];
    };
    if (argument == "-h" || argument == "--help") {
      options.help = true;
    } else if (argument == "--diff") {
      const std::string& a = value("two profile files");
      const std::string& b = value("two profile files");
      options.diff.emplace(a, b);
    } else if (argument == "--driver") {
      try {
        options.driver = parse_driver_request(value("auto, real or sim"));
      } catch (const std::invalid_argument& error) {
        throw UsageError(std::string("--driver: ") + error.what());
      }
      probe_option_seen = true;
    } else if (argument == "--profile") {
      options.profile = value("a profile file");
      probe_option_seen = true;
    } else if (argument == "-o" || argument == "--output") {
      options.output = value("a file name");
      probe_option_seen = true;
    } else if (argument == "--markdown") {
      options.markdown = value("a file name");
      probe_option_seen = true;
    } else if (argument == "--jobs") {
      options.jobs = positive_integer(argument, value("a number"), 256);
      probe_option_seen = true;
    } else if (argument == "--enqueue-limit") {
      options.enqueue_limit = positive_integer(argument, value("a number"), 1 << 20);
      probe_option_seen = true;
    } else if (argument == "--held-by") {
      options.held_by = value("launch-host-func, stream-add-callback or graph-host-node");
      if (options.held_by != "launch-host-func" && options.held_by != "stream-add-callback" &&
          options.held_by != "graph-host-node")
        throw UsageError("--held-by expects launch-host-func, stream-add-callback or graph-host-node, not '" +
                         options.held_by + "'");
      probe_option_seen = true;
    } else if (argument == "--cudart") {
      options.cudart = value("a libcudart path");
      probe_option_seen = true;
    } else {
      throw UsageError("unknown argument '" + argument + "'");
    }
  }
  if (options.diff && probe_option_seen) throw UsageError("--diff takes no other option");
  return options;
}

}  // namespace gilsan::probe
