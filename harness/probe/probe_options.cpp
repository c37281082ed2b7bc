#include "harness/probe/probe_options.h"

#include <charconv>

#include "harness/cli/option_table.h"

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

std::string held_by_kind(const std::string& kind) {
  if (kind != "launch-host-func" && kind != "stream-add-callback" && kind != "graph-host-node")
    throw UsageError("--held-by expects launch-host-func, stream-add-callback or graph-host-node, not '" + kind + "'");
  return kind;
}

}  // namespace

ProbeOptions parse_probe_options(const std::vector<std::string>& arguments) {
  ProbeOptions options;
  bool probe_option_seen = false;  // an option of a probe, which --diff does not take
  // Stores a probe's option and notes that one was given.
  auto probe_option = [&probe_option_seen](auto store) {
    return [&probe_option_seen, store](const std::string& value) {
      store(value);
      probe_option_seen = true;
    };
  };
  cli::OptionTable table;
  table.flag("-h,--help", [&options] { options.help = true; });
  table.pair("--diff", [&options](const std::string& a, const std::string& b) { options.diff.emplace(a, b); },
             "two profile files");
  table.value("--driver", probe_option([&options](const std::string& value) {
                try {
                  options.driver = parse_driver_request(value);
                } catch (const std::invalid_argument& error) {
                  throw UsageError(std::string("--driver: ") + error.what());
                }
              }),
              "auto, real or sim");
  table.value("--profile", probe_option([&options](const std::string& value) { options.profile = value; }), "a profile file");
  table.value("-o,--output", probe_option([&options](const std::string& value) { options.output = value; }), "a file name");
  table.value("--markdown", probe_option([&options](const std::string& value) { options.markdown = value; }), "a file name");
  table.value("--jobs", probe_option([&options](const std::string& value) { options.jobs = positive_integer("--jobs", value, 256); }),
              "a number");
  table.value("--enqueue-limit", probe_option([&options](const std::string& value) {
                options.enqueue_limit = positive_integer("--enqueue-limit", value, 1 << 20);
              }),
              "a number");
  table.value("--held-by", probe_option([&options](const std::string& value) { options.held_by = held_by_kind(value); }),
              "launch-host-func, stream-add-callback or graph-host-node");
  table.value("--cudart", probe_option([&options](const std::string& value) { options.cudart = value; }), "a libcudart path");
  if (const std::optional<std::string> problem = table.parse(arguments)) throw UsageError(*problem);
  if (options.diff && probe_option_seen) throw UsageError("--diff takes no other option");
  return options;
}

}  // namespace gilsan::probe
