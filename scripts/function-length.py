#!/usr/bin/env python3
"""The longest functions in Sources (Python 3, stdlib only).

Usage:
  scripts/function-length.py              the 15 longest functions: lines, path:line, declaration
  scripts/function-length.py --max 79     exit 1 when a function is longer than 79 lines, naming it

A function is a `func`, `init`, `subscript` or `deinit` declaration (after any attributes and
modifiers) and its body; its length counts the lines from the declaration to the brace that closes
the body, both included. Braces inside string literals and `//` comments are ignored. Nested
functions count within their parent and on their own. Deterministic: files in sorted order.
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DECLARATION = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|package|static|class|final|override|mutating|nonmutating|nonisolated|"
    r"convenience|required|@inline\(__always\)|@inlinable|@usableFromInline|@discardableResult)\s+)*"
    r"(func|init|subscript|deinit)\b")
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def functions(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    code = [STRING.sub('""', line).split("//")[0] for line in lines]
    found = []
    for i, line in enumerate(lines):
        if not DECLARATION.match(line):
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            for ch in code[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if opened and depth <= 0:
                found.append((j - i + 1, i + 1, line.strip()))
                break
            if not opened and j > i + 8:  # a requirement or a declaration without a body
                break
    return found


def main():
    parser = argparse.ArgumentParser(description="The longest functions in Sources.")
    parser.add_argument("--max", type=int, help="exit 1 when a function is longer than this many lines")
    parser.add_argument("--top", type=int, default=15, help="how many to list (default 15)")
    args = parser.parse_args()
    rows = []
    base = os.path.join(ROOT, "Sources")
    for directory, subdirs, files in os.walk(base):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                rel = os.path.relpath(path, ROOT)
                rows += [(n, rel, line, text) for n, line, text in functions(path)]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for n, rel, line, text in rows[: args.top]:
        print(f"{n:4} {rel}:{line}: {text[:100]}")
    if args.max is not None:
        long = [r for r in rows if r[0] > args.max]
        for n, rel, line, text in long:
            print(f"function-length: {rel}:{line} is {n} lines, above {args.max}: split it", file=sys.stderr)
        return 1 if long else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
