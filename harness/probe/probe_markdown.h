// The probe's report for people: origin and method, the topology, one table row per recipe (entry
// point, inside result code, inside behaviour, outside behaviour, recipe, control), which entry
// points were only trivially exercised, the runtime-vs-driver comparison, and what was not measured.
#pragma once

#include <string>

#include "harness/probe/probe_evidence.h"
#include "harness/probe/profile_assembly.h"

namespace gilsan::probe {

std::string render_markdown(const ProbeEvidence& evidence, const AssembledProfile& assembled);

// Why a recipe exercised its entry point only trivially ("" when it did not): its own reason, or a
// control call (no host function anywhere) that failed.
std::string trivially_exercised_because(const RecipeEvidence& evidence);

}  // namespace gilsan::probe
