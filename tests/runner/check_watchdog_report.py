"""Runs `gilsan run ... --report json -o FILE` and checks the watchdog's part of the report.

usage: check_watchdog_report.py --report FILE [checks...] -- GILSAN run SCENARIO [ARGS...]

The command must write its JSON run report to FILE (pass `--report json -o FILE` in it).

  --outcome TEXT           the run's outcome, e.g. deadlock:callback-self-wait or crash:SIGSEGV
  --class NAME             the watchdog report's class (a deadlock class or "crash")
  --cycle A>B>C            the cycle's nodes in order, up to rotation; threads by role (main, python,
                           callback, executor, thread), resources by kind (gil, stream, event, context,
                           callback-thread, driver-lock, lock)
  --no-cycle               the report has no cycle
  --call ROLE=ENTRY        the thread of that role is in driver call ENTRY (repeatable)
  --gil ROLE=STATE         the thread of that role's GIL state (holds, waiting, released, unknown)
  --host-function TEXT     the cycle's callback thread runs a host function whose description has TEXT
  --same-stream            every stream the cycle goes through is the one the main thread waits on,
                           or the one the callback thread's host function runs on
  --contexts N             the cycle's callback threads belong to N distinct contexts, and it goes
                           through N distinct streams (a cycle across devices)
  --finalizing             the report says the interpreter is finalizing
  --inferred TEXT          one of the report's inferred facts contains TEXT
  --lock-held-by ROLE      the cycle goes from a lock to the thread of that role that holds it, as the
                           board recorded it (not inferred): that thread's slot lists the lock, or for a
                           native lock, its waiter's record names that thread as the holder
  --lock-name TEXT         the cycle's lock node has a label containing TEXT
  --crash-signal NAME      crash record's signal, e.g. SIGSEGV
  --crash-python-frame F   the crashing thread's Python stack has function F
  --crash-native-frame T   the crashing thread's native stack has a symbol containing T
  --no-watchdog            the watchdog reported nothing
  --pending N              the report lists N host functions as pending (enqueued, not begun)
"""
import json
import subprocess
import sys


def fail(message):
    print("CHECK FAILED:", message)
    sys.exit(1)


def role_token(role):
    if role == "main":
        return "main"
    if role.startswith("callback thread"):
        return "callback"
    if role.startswith("python"):
        return "python"
    if role.startswith("device executor"):
        return "executor"
    return "thread"


def parse(argv):
    if "--" not in argv:
        fail("no '--' before the gilsan command")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    checks = {"call": [], "gil": []}
    flags = {"--no-cycle", "--same-stream", "--finalizing", "--no-watchdog"}
    i = 0
    while i < len(options):
        option = options[i]
        if option in flags:
            checks[option[2:]] = True
            i += 1
            continue
        if i + 1 >= len(options):
            fail(f"{option} needs a value")
        value = options[i + 1]
        if option in ("--call", "--gil"):
            role, _, expected = value.partition("=")
            checks[option[2:]].append((role, expected))
        elif option in ("--report", "--outcome", "--class", "--cycle", "--host-function", "--crash-signal", "--contexts", "--inferred",
                        "--crash-python-frame", "--crash-native-frame", "--lock-held-by", "--lock-name", "--pending"):
            checks[option[2:]] = value
        else:
            fail(f"unknown option {option}")
        i += 2
    if "report" not in checks:
        fail("--report FILE is required")
    return checks, command


def is_rotation(expected, actual):
    if len(expected) != len(actual):
        return False
    return any(actual[i:] + actual[:i] == expected for i in range(len(actual)))


def main(argv):
    checks, command = parse(argv)
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=110)
    print(completed.stdout, end="")
    print(completed.stderr, end="", file=sys.stderr)
    try:
        with open(checks["report"]) as stream:
            run = json.load(stream)
    except (OSError, ValueError) as error:
        fail(f"cannot read the run report {checks['report']}: {error}")
    if "outcome" in checks and run["outcome"] != checks["outcome"]:
        fail(f"outcome {run['outcome']!r}, expected {checks['outcome']!r}")
    report = run.get("watchdog")
    if checks.get("no-watchdog"):
        if report is not None:
            fail(f"the watchdog reported {report.get('class')}: {report.get('summary')}")
        return 0
    if report is None:
        fail("the run report has no watchdog report")
    if report.get("schema") != "gilsan-hang-report/1":
        fail(f"schema {report.get('schema')!r}")
    if "class" in checks and report["class"] != checks["class"]:
        fail(f"class {report['class']!r}, expected {checks['class']!r}")
    if "pending" in checks and len(report["pending_host_functions"]) != int(checks["pending"]):
        fail(f"{len(report['pending_host_functions'])} host functions pending, expected {checks['pending']}: "
             f"{report['pending_host_functions']}")

    threads = {thread["tid"]: thread for thread in report["threads"]}
    by_role = {}
    for thread in report["threads"]:
        by_role.setdefault(role_token(thread["role"]), []).append(thread)
    nodes = {node["id"]: node for node in report["graph"]["nodes"]}

    def token(node_id):
        node = nodes.get(node_id)
        if node is None:
            fail(f"cycle node {node_id} is not in the graph")
        if node["kind"] == "thread":
            return role_token(threads[node["tid"]]["role"]) if node["tid"] in threads else "thread"
        return node["kind"]

    cycle = report["cycle"]
    for earlier, later in zip(cycle, cycle[1:] + cycle[:1]):
        if earlier["to"] != later["from"]:
            fail(f"the cycle is not closed: {earlier['to']} then {later['from']}")
    actual = [token(edge["from"]) for edge in cycle]
    if checks.get("no-cycle") and cycle:
        fail(f"expected no cycle, got {'>'.join(actual)}")
    if "cycle" in checks and not is_rotation(checks["cycle"].split(">"), actual):
        fail(f"cycle {'>'.join(actual)}, expected {checks['cycle']} (up to rotation)")

    def the_thread(role):
        candidates = [t for t in by_role.get(role, []) if not t.get("exited")]
        in_cycle = [t for t in candidates if f"thread:{t['tid']}" in {e["from"] for e in cycle}]
        chosen = in_cycle or candidates
        if not chosen:
            fail(f"no thread of role {role}")
        return chosen[0]

    for role, entry in checks["call"]:
        call = the_thread(role)["call"]
        if call is None or call["entry_point"] != entry:
            fail(f"{role} thread's call is {call and call['entry_point']}, expected {entry}")
    for role, state in checks["gil"]:
        gil = the_thread(role)["gil"]
        if gil["state"] != state:
            fail(f"{role} thread's GIL state is {gil['state']}, expected {state}")
    if "host-function" in checks:
        host_function = the_thread("callback")["host_function"]
        if host_function is None or checks["host-function"] not in host_function["description"]:
            fail(f"callback thread's host function is {host_function}, expected one described by "
                 f"{checks['host-function']!r}")
    if checks.get("same-stream"):
        allowed = set()
        main_call = the_thread("main")["call"]
        if main_call and main_call.get("stream"):
            allowed.add(main_call["stream"])
        host_function = the_thread("callback")["host_function"]
        if host_function:
            allowed.add(host_function["stream"])
        streams = {edge[end].split(":", 1)[1].split("@")[0] for edge in cycle for end in ("from", "to")
                   if edge[end].startswith("stream:")}
        if not streams or not streams <= allowed:
            fail(f"cycle streams {sorted(streams)}, expected among {sorted(allowed)}")
    if "contexts" in checks:
        in_cycle = [threads[nodes[edge["from"]]["tid"]] for edge in cycle
                    if nodes[edge["from"]]["kind"] == "thread" and nodes[edge["from"]]["tid"] in threads]
        contexts = {t["role"].rsplit(" ", 1)[1] for t in in_cycle if t["role"].startswith("callback thread of context")}
        streams = {edge["from"] for edge in cycle if edge["from"].startswith("stream:")}
        if len(contexts) != int(checks["contexts"]) or len(streams) != int(checks["contexts"]):
            fail(f"the cycle's callback threads are of contexts {sorted(contexts)} and it goes through streams "
                 f"{sorted(streams)}; expected {checks['contexts']} of each")
    if "inferred" in checks and not any(checks["inferred"] in fact for fact in report["inferred"]):
        fail(f"no inferred fact has {checks['inferred']!r}: {report['inferred']}")
    lock_edges = [edge for edge in cycle if nodes[edge["from"]]["kind"] == "lock"]
    if "lock-held-by" in checks:
        role = checks["lock-held-by"]
        held = [edge for edge in lock_edges if edge["relation"] == "held-by" and nodes[edge["to"]]["kind"] == "thread"
                and nodes[edge["to"]]["tid"] in threads and role_token(threads[nodes[edge["to"]]["tid"]]["role"]) == role]
        if not held:
            fail(f"no edge of the cycle says a lock is held by the {role} thread: {lock_edges}")
        if any(edge["inferred"] or not edge["evidence"].startswith("board") for edge in held):
            fail(f"the lock's holder is inferred, not recorded: {held}")
        holder = threads[nodes[held[0]["to"]]["tid"]]
        lock_id = nodes[held[0]["from"]]["id"].split(":", 1)[1]
        native_waits = [thread["waiting_lock"] for thread in threads.values()
                        if (thread.get("waiting_lock") or {}).get("id") == lock_id
                        and thread["waiting_lock"].get("kind", "python") != "python"]
        if native_waits:
            if not any(wait.get("holder_tid") == holder["tid"] for wait in native_waits):
                fail(f"no waiter of native lock {lock_id} names the {role} thread as its holder: {native_waits}")
        elif not any(lock["id"] == lock_id for lock in holder.get("held_locks") or []):
            fail(f"the {role} thread's slot does not list lock {lock_id}: {holder.get('held_locks')}")
    if "lock-name" in checks:
        labels = [nodes[edge["from"]]["label"] for edge in lock_edges]
        if not any(checks["lock-name"] in label for label in labels):
            fail(f"the cycle's locks are {labels}, expected one with {checks['lock-name']!r}")
    if checks.get("finalizing") and not report["interpreter_finalizing"]["value"]:
        fail("the report does not say the interpreter is finalizing")

    if "crash-signal" in checks:
        crash = report.get("crash")
        if not crash or crash["signal_name"] != checks["crash-signal"]:
            fail(f"crash record {crash}, expected {checks['crash-signal']}")
        crashed = threads.get(crash["tid"])
        if crashed is None:
            fail(f"the crashing thread {crash['tid']} is not in the report")
        if "crash-python-frame" in checks:
            functions = [frame["function"] for frame in crashed.get("python_stack") or []]
            if checks["crash-python-frame"] not in functions:
                fail(f"crashing thread's Python stack {functions} lacks {checks['crash-python-frame']}")
        if "crash-native-frame" in checks:
            symbols = [frame["symbol"] for frame in crashed.get("native_stack") or []]
            if not any(checks["crash-native-frame"] in symbol for symbol in symbols):
                fail(f"crashing thread's native stack {symbols} lacks {checks['crash-native-frame']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
