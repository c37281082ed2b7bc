// The text form of reports, for people: a headline, one sentence per edge, then each edge's stack.
#pragma once

#include <string>

#include "checkers/core/report.h"

namespace gilsan::checkers {

std::string render_text(const Report& report);
// The end of a run: how many reports, unused suppressions, sink errors.
std::string render_text(const RunSummary& summary);

}  // namespace gilsan::checkers
