#!/usr/bin/env python3
"""Checks every relative link of README.md and docs/**/*.md: the file it names must exist,
and an `#anchor` must match a heading of the target (GitHub's slug: lower case, punctuation
dropped except hyphens and spaces, spaces to hyphens; a repeated heading gets -1, -2, …).

    python3 scripts/check-links.py          # links: N checked, 0 broken (exit 0), else lists them (exit 1)

Links are markdown links `[text](target)` and images `![alt](target)` outside fenced code
blocks and inline code; web addresses (`https:`, `mailto:` …) are not checked.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")


def outside_fences(text):
    """The text's lines outside fenced code blocks; (number, line)."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)
            elif stripped.startswith(fence) and not stripped[len(fence):].strip():
                fence = None
            continue
        if fence is None:
            yield number, line


def prose(text):
    """The text's lines outside fenced code blocks, with inline code blanked; (number, line)."""
    for number, line in outside_fences(text):
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"<[^>]+>", "", heading)  # inline HTML
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # punctuation, except hyphens and spaces
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor of a markdown file's headings (with GitHub's -1, -2 for repeats)."""
    seen = {}
    found = set()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for _, line in outside_fences(text):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def files(arguments):
    if arguments:
        return [os.path.abspath(a) for a in arguments]
    return [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def main():
    checked = 0
    broken = []
    cache = {}
    for path in files(sys.argv[1:]):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        where = os.path.relpath(path, ROOT)
        for number, line in prose(text):
            for match in LINK.finditer(line):
                target = match.group(1)
                if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
                    continue  # https:, mailto: …
                checked += 1
                name, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
                if not os.path.exists(resolved):
                    broken.append(f"{where}:{number}: {target}: no file {os.path.relpath(resolved, ROOT)}")
                    continue
                if anchor and resolved.endswith(".md"):
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        broken.append(f"{where}:{number}: {target}: no heading '#{anchor}' in {os.path.relpath(resolved, ROOT)}")
    for problem in broken:
        print(problem)
    print(f"links: {checked} checked, {len(broken)} broken")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
