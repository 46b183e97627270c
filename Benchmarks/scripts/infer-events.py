#!/usr/bin/env python3
"""Peak memory and throughput of `funnellab infer` on event logs of 10^6 and 10^7 events.

    python3 Benchmarks/scripts/infer-events.py [--binary PATH] [--runs 3] [--quick]

It builds each log from `funnellab trace` (the built-in Klick onboarding, 100,000 users a
run): chunk k is the trace with seed k + 1, its user ids (and a clickstream's session ids)
prefixed with `c<k>-` so that no two chunks share a user, and whole users are appended until
the log holds the size's events. Each user's events stay together and in time order, as
`trace` wrote them. Two shapes: FunnelLab's NDJSON and the clickstream CSV (one header, not
counted as an event). The logs go to --dir (default /tmp/funnellab-infer-bench), never into
the repository, and are deleted at the end unless --keep.

Each log is read by `funnellab infer <log> -o /dev/null --report /dev/null` under
`/usr/bin/time -v`, --runs times; the table holds the medians of wall time, CPU (user +
system) and maximum resident set size. CPU seconds and RSS do not depend on what else the
machine runs; wall time does. --quick uses 10^4 and 10^5 events to try the script.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
USERS_PER_TRACE = 100_000  # `trace --users` accepts at most this
SHAPES = {
    "ndjson": {"log_format": "funnellab", "suffix": ".ndjson", "infer": []},
    "clickstream": {
        "log_format": "clickstream",
        "suffix": ".csv",
        "infer": [
            "--log-format", "clickstream",
            "--completion-event", "onboarding_completed",
            "--purchase-event", "purchase_succeeded",
        ],
    },
}
NDJSON_USER = re.compile(rb'^\{"user_id":(\d+),')
CSV_USER = re.compile(rb"^(u\d+),(s\d+),")

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "funnellab"),
                    help="the funnellab binary (default: .build/release/funnellab of the repository)")
parser.add_argument("--dir", default="/tmp/funnellab-infer-bench", help="where the logs are written")
parser.add_argument("--runs", type=int, default=3, help="runs of infer per log (the median is reported)")
parser.add_argument("--sizes", default="1000000,10000000", help="events per log, comma-separated")
parser.add_argument("--shapes", default="ndjson,clickstream", help="of: " + ", ".join(SHAPES))
parser.add_argument("--quick", action="store_true", help="sizes 10^4 and 10^5 (to try the script)")
parser.add_argument("--keep", action="store_true", help="keep the logs")
args = parser.parse_args()


def rewrite(shape, line, chunk):
    """`line` with its user (and session) id prefixed by the chunk; returns (user, line)."""
    if shape == "ndjson":
        m = NDJSON_USER.match(line)
        if not m:
            sys.exit(f"an NDJSON line without a leading numeric user_id: {line[:80]!r}")
        user = b"c%d-%s" % (chunk, m.group(1))
        return user, b'{"user_id":"%s",%s' % (user, line[m.end():])
    m = CSV_USER.match(line)
    if not m:
        sys.exit(f"a clickstream line without user and session ids: {line[:80]!r}")
    user = b"c%d-%s" % (chunk, m.group(1))
    return user, b"%s,c%d-%s,%s" % (user, chunk, m.group(2), line[m.end():])


def build(shape, events, path):
    """Writes a log of whole users holding at least `events` events; returns (events, users)."""
    written = users = chunk = 0
    with open(path, "wb") as out:
        while written < events:
            cmd = [args.binary, "trace", "--users", str(USERS_PER_TRACE), "--seed", str(chunk + 1),
                   "--log-format", SHAPES[shape]["log_format"], "-q"]
            trace = subprocess.Popen(cmd, stdout=subprocess.PIPE)
            current, stopped = None, False
            for number, line in enumerate(trace.stdout):
                if shape == "clickstream" and number == 0:
                    if chunk == 0:
                        out.write(line)
                    continue
                user, line = rewrite(shape, line, chunk)
                if user != current:
                    if written >= events:
                        stopped = True  # enough events: the rest of this trace is not needed
                        break
                    current = user
                    users += 1
                out.write(line)
                written += 1
            if stopped:
                trace.kill()
            trace.stdout.close()
            if trace.wait() != 0 and not stopped:
                sys.exit(f"{' '.join(cmd)} failed ({trace.returncode})")
            chunk += 1
    return written, users


def counted(path, shape):
    """The log's events, counted again from the file: its lines, less a clickstream's header."""
    lines = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            lines += block.count(b"\n")
    return lines - (1 if shape == "clickstream" else 0)


def wall_seconds(text):
    """`h:mm:ss` or `m:ss.ss` as seconds."""
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def measure(shape, path):
    """One run of infer: (wall s, CPU s, peak RSS kB)."""
    fd, report = tempfile.mkstemp(prefix="time-", dir=args.dir)
    os.close(fd)
    cmd = ["/usr/bin/time", "-v", "-o", report, args.binary, "infer", str(path),
           *SHAPES[shape]["infer"], "-o", "/dev/null", "--report", "/dev/null", "-q"]
    run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    text = open(report).read()
    os.remove(report)
    if run.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr}{text}")
    field = dict(line.strip().rsplit(": ", 1) for line in text.splitlines() if ": " in line)
    cpu = float(field["User time (seconds)"]) + float(field["System time (seconds)"])
    return (wall_seconds(field["Elapsed (wall clock) time (h:mm:ss or m:ss)"]), cpu,
            int(field["Maximum resident set size (kbytes)"]))


def main():
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"no funnellab binary at {args.binary} (build it: swift build -c release --product funnellab)")
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("no /usr/bin/time (apt-get install -y time)")
    directory = Path(args.dir).resolve()
    if directory == ROOT or ROOT in directory.parents:
        sys.exit(f"--dir {directory} is inside the repository; the logs go elsewhere")
    directory.mkdir(parents=True, exist_ok=True)
    sizes = [10_000, 100_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version} ({args.binary}); {args.runs} runs a log; logs in {directory}", flush=True)
    rows = []
    for shape in shapes:
        for size in sizes:
            path = directory / f"klick-{size}{SHAPES[shape]['suffix']}"
            t0 = time.monotonic()
            events, users = build(shape, size, path)
            if counted(path, shape) != events:
                sys.exit(f"{path}: {counted(path, shape)} events in the file, {events} written")
            print(f"{shape} {events:,} events, {users:,} users, {path.stat().st_size / 1e6:,.0f} MB "
                  f"(built in {time.monotonic() - t0:.0f} s)", flush=True)
            runs = []
            for r in range(args.runs):
                runs.append(measure(shape, path))
                wall, cpu, rss = runs[-1]
                print(f"  run {r + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:,} kB peak RSS", flush=True)
            if not args.keep:
                path.unlink()
            rows.append((shape, events, users, *(statistics.median(x) for x in zip(*runs))))
    print()
    print("| shape | events | users | wall s | CPU s | events / CPU s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for shape, events, users, wall, cpu, rss in rows:
        print(f"| {shape} | {events:,} | {users:,} | {wall:.1f} | {cpu:.1f} | {events / cpu / 1e3:,.0f} k "
              f"| {rss / 1e3:.1f} |")
    if not args.keep:
        try:
            directory.rmdir()
        except OSError:
            pass


main()
