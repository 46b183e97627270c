#!/usr/bin/env python3
"""Re-runs every `$ funnellab …` command pasted in README.md and docs/**/*.md and compares
its output with the text pasted under it, so that the documentation shows real output of the
current build.

    swift build -c release --product funnellab
    python3 scripts/readme-outputs.py            # report which outputs differ (exit 1 if any)
    python3 scripts/readme-outputs.py --write    # paste the new outputs in place
    python3 scripts/readme-outputs.py --only ingest   # commands containing a word
    python3 scripts/readme-outputs.py --files README.md docs/guide-planning.md   # some files only
    python3 scripts/readme-outputs.py --build debug   # the debug binary (CI runs the release one stage 2 built)

Lines that tell how long a run takes (a long run's `Note: … should take about …` and its
lines per 10 %) depend on the machine's speed that minute and are left out of the comparison.
A command runs with bash in a scratch folder where `experiments`, `Tests` and `Benchmarks` link to the repository's,
`funnellab` on PATH is the release binary (or `--build debug`'s: the output is the same bytes,
results do not depend on the build), and the files earlier commands of the same
block wrote are kept (a block is one fenced code block). Its stdout and stderr are read
together, as a terminal shows them. A command whose inputs are not in the repository
(a file the text asks the reader to write) is reported as skipped. A pasted output that
elides lines (`…`) is compared up to the elision only and never rewritten.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release")  # or .build/debug with --build debug


def blocks(lines):
    """(start, end) line indices of the fenced blocks' contents."""
    start = None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if start is None:
                start = i + 1
            else:
                yield start, i
                start = None


def commands(lines, start, end):
    """(index of the `$` line, command, output start, output end) in a block."""
    i = start
    while i < end:
        if lines[i].startswith("$ "):
            j = i + 1
            while j < end and not lines[j].startswith("$ "):
                j += 1
            yield i, lines[i][2:], i + 1, j
            i = j
        else:
            i += 1


TIMING = re.compile(r"^(Note: .* should take about .*|[\w /]+: \d+% · .* so far · about .* left)$")


def run(command, folder):
    # The docs show what a reader sees off a terminal: 100 columns, no colour, whatever the shell has set.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    env["PATH"] = BINARY + os.pathsep + os.environ.get("PATH", "")
    result = subprocess.run(
        # The group's stderr joins stdout; a command's own redirection (`>> a.ndjson`) keeps only
        # its stdout, so a slow run's announcement never lands in a file the next command reads.
        ["bash", "-c", "{ " + command + "\n} 2>&1"], cwd=folder, env=env, capture_output=True, text=True, timeout=1800)
    # A long run's announcement and its lines per 10 % depend on how fast this machine is that
    # minute: they are not part of a pasted output.
    out = [line for line in result.stdout.splitlines() if not TIMING.match(line)]
    while out and not out[-1].strip():
        out.pop()  # a pasted output leaves out the blank lines at its end
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="paste the new outputs in place")
    parser.add_argument("--only", action="append", help="run only the commands containing this text (repeatable: any of them)")
    parser.add_argument("--files", nargs="+", metavar="FILE",
                        help="the markdown files to check (default: README.md and every docs/**/*.md)")
    parser.add_argument("--jobs", type=int, default=2, help="files checked at once (default: 2)")
    parser.add_argument("--build", choices=["release", "debug"], default="release",
                        help="whose funnellab runs the commands (default: release)")
    args = parser.parse_args()
    global BINARY
    BINARY = os.path.join(ROOT, ".build", args.build)
    if not os.path.exists(os.path.join(BINARY, "funnellab")):
        sys.exit(f"build first: swift build -c {args.build} --product funnellab")
    totals = [0, 0, 0]
    paths = [os.path.abspath(p) for p in args.files or documents()]
    # Files in parallel (each block runs in its own folder); their reports in order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for *counts, said in pool.map(lambda p: check(p, args), paths):
            for line in said:
                print(line, flush=True)
            for k, count in enumerate(counts):
                totals[k] += count
    same, differ, skipped = totals
    if len(args.files or documents()) > 1:
        print(f"all files: {same} outputs as pasted, {differ} differ, {skipped} skipped")
    sys.exit(1 if differ and not args.write else 0)


def documents():
    """README.md and every markdown file under docs/."""
    return [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def check(path, args):
    """Re-runs the commands of one file; (same, differ, skipped, the lines to print)."""
    said = []
    say = said.append
    name = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    replacements = []
    differ = skipped = same = 0
    for start, end in blocks(lines):
        folder = tempfile.mkdtemp(prefix="readme-outputs-")
        os.symlink(os.path.join(ROOT, "experiments"), os.path.join(folder, "experiments"))
        os.symlink(os.path.join(ROOT, "Tests"), os.path.join(folder, "Tests"))
        os.symlink(os.path.join(ROOT, "Benchmarks"), os.path.join(folder, "Benchmarks"))
        for at, command, out_start, out_end in commands(lines, start, end):
            if not command.startswith("funnellab"):
                run(command, folder)  # a setup step shown in the block
                continue
            if args.only and not any(text in command for text in args.only):
                continue
            pasted = lines[out_start:out_end]
            while pasted and not pasted[-1].strip():
                pasted.pop()
                out_end -= 1
            words = re.findall(r"[\w./-]+\.(?:json|csv|ndjson|xml)", command)
            outputs = set(re.findall(r"(?:-o|--junit|--update-baseline|--write-spec|>>?)\s+([\w./-]+)", command))
            inputs = [w for w in words if w not in outputs and not os.path.exists(os.path.join(folder, w))]
            if inputs:
                say(f"skipped ({name}:{at + 1}): {command}  [needs {', '.join(inputs)}]")
                skipped += 1
                continue
            got = run(command, folder)
            elided = next((k for k, line in enumerate(pasted) if line.strip() in ("…", "...")), None)
            compare = pasted if elided is None else pasted[:elided]
            if got[:len(compare)] == compare and (elided is not None or len(got) == len(pasted)):
                # After an elision, every pasted line must still come, in order.
                rest = [] if elided is None else [l for l in pasted[elided:] if l.strip() not in ("…", "...")]
                position = len(compare)
                for line in rest:
                    position = next((k + 1 for k in range(position, len(got)) if got[k] == line), -1)
                    if position < 0:
                        say(f"differs after an elision ({name}:{at + 1}): {command}\n  pasted: {line}")
                        break
                if position >= 0:
                    same += 1
                else:
                    differ += 1
                continue
            differ += 1
            say(f"differs ({name}:{at + 1}): {command}")
            for k in range(max(len(compare), len(got))):
                a = compare[k] if k < len(compare) else "<none>"
                b = got[k] if k < len(got) else "<none>"
                if a != b:
                    say(f"  pasted: {a}\n  now:    {b}")
                    break
            if elided is None:
                replacements.append((out_start, out_end, got))
    if same or differ or skipped:
        say(f"{name}: {same} outputs as pasted, {differ} differ, {skipped} skipped")
    if args.write and replacements:
        for out_start, out_end, got in sorted(replacements, reverse=True):
            lines[out_start:out_end] = got
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        say(f"wrote {len(replacements)} outputs into {name}")
    return same, differ, skipped, said


if __name__ == "__main__":
    main()
