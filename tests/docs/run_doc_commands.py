#!/usr/bin/env python3
"""Runs every ```sh block of a Markdown page, so that a guide cannot say what the tool no longer does.

Each block runs as one bash script (errexit, pipefail), in order, in a scratch folder of the page's
own (what one block writes, the next can read, as a reader following the page would) that holds links to
the repository's scenarios/, profiles/ and docs/ and to the build as build/, with build/bin first on
PATH (so the page says `gilsan`, as an installed user types it). A block's last status must be 0 unless the HTML comment just
above its fence says otherwise; the comment can also require text in the output or skip the block:

    <!-- doc-test: exit 1 -->
    <!-- doc-test: expect "outcome   deadlock:gil-driver-inversion" -->
    <!-- doc-test: skip: needs a GPU -->

A failure names the page and the line of the block's fence. Blocks of other languages are prose.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

FENCE = re.compile(r"^```(\S*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
BLOCK_TIMEOUT_S = 120  # a block that hangs is a failure, never a hung CI


@dataclass
class Block:
    line: int  # of the opening fence, 1-based
    script: str
    exit_status: int = 0
    expected_text: list = field(default_factory=list)
    skip_reason: str = ""


class PageError(Exception):
    pass


def parse_directive(text, block, where):
    if text.startswith("skip:"):
        block.skip_reason = text[len("skip:"):].strip() or "no reason given"
    elif text.startswith("exit "):
        try:
            block.exit_status = int(text[len("exit "):])
        except ValueError:
            raise PageError(f"{where}: 'doc-test: {text}': the exit status is not a number")
    elif text.startswith("expect "):
        try:
            words = shlex.split(text[len("expect "):])
        except ValueError as error:
            raise PageError(f"{where}: 'doc-test: {text}': {error}")
        if len(words) != 1:
            raise PageError(f"{where}: 'doc-test: {text}': expect takes one quoted text")
        block.expected_text.append(words[0])
    else:
        raise PageError(f"{where}: unknown 'doc-test: {text}' (skip:, exit N or expect \"text\")")


def read_blocks(path):
    """The page's sh blocks, each with the directives of the comment lines just above its fence."""
    blocks, pending, inside, language, body, start = [], [], False, "", [], 0
    with open(path, encoding="utf-8") as page:
        lines = page.read().splitlines()
    for number, line in enumerate(lines, start=1):
        fence = FENCE.match(line)
        if inside:
            if fence and fence.group(1) == "":
                if language == "sh":
                    block = Block(start, "\n".join(body) + "\n")
                    for directive_line, text in pending:
                        parse_directive(text, block, f"{path}:{directive_line}")
                    blocks.append(block)
                elif pending:
                    raise PageError(f"{path}:{pending[0][0]}: a doc-test comment above a '{language}' block")
                inside, pending, body = False, [], []
            else:
                body.append(line)
            continue
        if fence:
            inside, language, start, body = True, fence.group(1), number, []
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            pending.append((number, directive.group(1)))
        elif line.strip() and pending:
            raise PageError(f"{path}:{pending[0][0]}: a doc-test comment must be just above a ```sh fence")
    if inside:
        raise PageError(f"{path}:{start}: the block opened here is never closed")
    if pending:
        raise PageError(f"{path}:{pending[0][0]}: a doc-test comment with no block after it")
    return blocks


def scratch_folder(root, build):
    folder = tempfile.mkdtemp(prefix="gilsan-doc-test-")
    for name in ("scenarios", "profiles", "docs"):
        os.symlink(os.path.join(root, name), os.path.join(folder, name))
    os.symlink(build, os.path.join(folder, "build"))
    return folder


def run_block(block, path, folder, build):
    env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ.get("PATH", ""))
    process = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", block.script], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=BLOCK_TIMEOUT_S)
        status = process.returncode
    except subprocess.TimeoutExpired:
        # The block's whole process group: a gilsan it started must not outlive the test.
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = None
    problems = []
    if status is None:
        problems.append(f"did not finish in {BLOCK_TIMEOUT_S} s")
    elif status != block.exit_status:
        problems.append(f"exit status {status}, the page expects {block.exit_status}")
    for text in block.expected_text:
        if text not in output:
            problems.append(f"output lacks {text!r}")
    if problems:
        shown = "\n".join("    " + line for line in output.splitlines()[-30:])
        return f"{path}:{block.line}: " + "; ".join(problems) + "\n  the block:\n" + \
            "\n".join("    $ " + line for line in block.script.splitlines()) + "\n  its output (last lines):\n" + shown
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the repository")
    parser.add_argument("--build", required=True, help="the build folder (bin/gilsan, python/, ...)")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    failures, ran, skipped = [], 0, 0
    for path in args.pages:
        try:
            blocks = read_blocks(path)
        except (OSError, PageError) as error:
            print(f"run_doc_commands: {error}", file=sys.stderr)
            return 2
        if not blocks:
            failures.append(f"{path}: no ```sh block to run (a guide page shows its commands)")
        build = os.path.abspath(args.build)
        folder = scratch_folder(args.root, build)
        try:
            for block in blocks:
                if block.skip_reason:
                    skipped += 1
                    print(f"skip {path}:{block.line}: {block.skip_reason}")
                    continue
                ran += 1
                failure = run_block(block, path, folder, build)
                print(f"{'FAIL' if failure else 'ok  '} {path}:{block.line}")
                if failure:
                    failures.append(failure)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{ran} blocks ran, {skipped} skipped, {len(failures)} failed")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
