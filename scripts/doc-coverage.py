#!/usr/bin/env python3
"""Doc-comment coverage of the public API, per library module (Python 3, stdlib only).

Usage:
  scripts/doc-coverage.py                 table: module, public declarations, documented, percent
  scripts/doc-coverage.py --list          also every undocumented declaration as `path:line: text`
  scripts/doc-coverage.py --min 95        exit 1 when a module is below 95 % (names the module on stderr)
  scripts/doc-coverage.py --cases         also count the `case`s of public enums (off by default)
  scripts/doc-coverage.py FunnelStats     only the modules named (default: FunnelStats FunnelLab FunnelReport FunnelLabCLI)

What counts as a public declaration (read from the text of Sources/<Module>/**/*.swift; no compiler):
  - a declaration whose modifiers (after any attributes such as `@inlinable`, `@discardableResult`,
    `@available(...)`, even spread over several lines) include `public` or `open`: `public func`,
    `public static let`, `public init?(...)`, `public private(set) var`, `public mutating func`,
    `public struct/enum/class/actor/protocol/typealias`, `public subscript`, ... One line declaring
    several names (`public var a, b: Int`) counts once.
  - every requirement (func, var, init, subscript, associatedtype, typealias) declared directly in the
    body of a `public protocol`: it is public without saying so.
  - not counted: extensions (`public extension X`, `extension X`), `public import`, `case`s of public
    enums (unless `--cases`), and members that are public only through a `public extension`.
  Members written `public` inside a non-public type count too (the text says public; the script does not
  resolve effective access).
  - not counted as the public API: declarations marked `@_spi(...)`, and everything inside a type so
    marked: they are visible only to an `@_spi(...) import` (the benchmarks' access to engine internals).
    They are counted in the `spi` column, and their doc comments are not required.

Documented means: the nearest non-attribute line above the declaration ends a `///` run or a `/** */`
block. Between them may stand attribute lines and `#if`/`#elseif`/`#else`/`#endif` lines; a blank line or
an ordinary `//` comment detaches the doc comment. In `#if A ... #else ... #endif` each branch's
declaration needs its own comment (the first one may sit above the `#if`).

The scan is a small lexer (strings, raw strings, multi-line strings, interpolation, nested block
comments), deterministic (files in sorted order) and fast (well under a second for the whole tree).
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODULES = ["FunnelStats", "FunnelLab", "FunnelReport", "FunnelLabCLI"]

MODIFIERS = {
    "public", "open", "private", "fileprivate", "internal", "package", "static", "class", "final",
    "mutating", "nonmutating", "override", "required", "convenience", "lazy", "nonisolated", "indirect",
    "dynamic", "weak", "unowned", "optional", "prefix", "postfix", "infix", "distributed", "consuming",
    "borrowing", "__consuming",
}
KEYWORDS = {
    "func", "init", "deinit", "subscript", "var", "let", "struct", "enum", "class", "actor", "protocol",
    "typealias", "associatedtype", "case", "extension", "import", "operator", "precedencegroup", "macro",
}
TYPE_KEYWORDS = {"struct", "enum", "class", "actor", "protocol", "extension"}
REQUIREMENT_KEYWORDS = {"func", "var", "init", "subscript", "associatedtype", "typealias"}
TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9]*)(\s*\(\s*[A-Za-z_]+\s*\))?")
NAME = re.compile(r"\s*`?([A-Za-z_][A-Za-z_0-9]*)")
DIRECTIVE = re.compile(r"#(if|elseif|else|endif)\b")
STRING_START = re.compile(r'(#*)("""|")')
ATTRIBUTE = re.compile(r"\s*@[A-Za-z_][A-Za-z_0-9.]*")
OPEN_PAREN = re.compile(r"\s*\(")
PLAIN_CODE = re.compile(r'[^/"#()\n]+')  # runs the lexer copies without looking
PLAIN_STRING = re.compile(r'[^\\"\n]+')
PLAIN_COMMENT = re.compile(r"[^/*\n]+")


class Line:
    __slots__ = ("text", "code", "doc", "comment", "string")

    def __init__(self, text):
        self.text = text  # the source line
        self.code = []  # code characters only: comments dropped, string contents dropped
        self.doc = False  # holds (part of) a `///` or `/** */` comment
        self.comment = False  # holds (part of) an ordinary comment
        self.string = False  # holds part of a multi-line string literal


def lex(text):
    """Lines with their code separated from comments and string contents."""
    lines = [Line(t) for t in text.split("\n")]
    n = len(text)
    row = 0
    # Stack of frames: ("code", paren depth, is interpolation) | ("string", hashes, multiline)
    #                  | ("comment", nesting depth, is doc)
    stack = [["code", 0, False]]
    i = 0
    while i < n:
        c = text[i]
        top = stack[-1]
        line = lines[row]
        if c == "\n":
            if top[0] == "string":
                if top[2]:
                    lines[row + 1].string = True
                else:  # unterminated single-line string: recover
                    stack.pop()
            elif top[0] == "comment":
                lines[row + 1].doc |= top[2]
                lines[row + 1].comment |= not top[2]
            row += 1
            i += 1
            continue
        if top[0] == "code":
            m = PLAIN_CODE.match(text, i)
            if m:
                line.code.append(m.group())
                i = m.end()
                continue
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                if text.startswith("///", i) and not text.startswith("////", i):
                    line.doc = True
                else:
                    line.comment = True
                i = end
                continue
            if text.startswith("/*", i):
                doc = text.startswith("/**", i) and not text.startswith("/**/", i)
                stack.append(["comment", 1, doc])
                line.doc |= doc
                line.comment |= not doc
                i += 2
                continue
            m = STRING_START.match(text, i)
            if m and (m.group(1) == "" or c == "#"):
                stack.append(["string", len(m.group(1)), m.group(2) == '"""'])
                line.code.append('""')
                i = m.end()
                continue
            if c == "(":
                top[1] += 1
            elif c == ")":
                if top[2] and top[1] == 0:
                    stack.pop()
                    i += 1
                    continue
                top[1] -= 1
            line.code.append(c)
            i += 1
            continue
        if top[0] == "string":
            m = PLAIN_STRING.match(text, i)
            if m:
                i = m.end()
                continue
            hashes = "#" * top[1]
            if c == "\\" and text.startswith(hashes, i + 1):
                j = i + 1 + top[1]
                if j < n and text[j] == "(":
                    stack.append(["code", 0, True])
                    i = j + 1
                else:
                    i = j + 1 if j < n and text[j] != "\n" else j
                continue
            close = ('"""' if top[2] else '"') + hashes
            if text.startswith(close, i):
                stack.pop()
                i += len(close)
                continue
            i += 1
            continue
        # block comment
        m = PLAIN_COMMENT.match(text, i)
        if m:
            i = m.end()
        elif text.startswith("/*", i):
            top[1] += 1
            i += 2
        elif text.startswith("*/", i):
            top[1] -= 1
            i += 2
            if top[1] == 0:
                stack.pop()
        else:
            i += 1
    for line in lines:
        line.code = "".join(line.code).strip()
    return lines


def strip_attributes(lines, i):
    """The code after the attributes that start at line i, and the index of the line it is on.
    An attribute's argument list may run over several lines."""
    code = lines[i].code
    pos = 0
    while True:
        m = ATTRIBUTE.match(code, pos)
        if not m:
            return code[pos:].strip(), i
        pos = m.end()
        m2 = OPEN_PAREN.match(code, pos)
        if not m2:
            continue
        pos = m2.end()
        depth = 1
        while depth:
            if pos >= len(code):
                if i + 1 >= len(lines):
                    return "", i
                i += 1
                code, pos = lines[i].code, 0
                continue
            depth += {"(": 1, ")": -1}.get(code[pos], 0)
            pos += 1


def parse_declaration(code):
    """(modifiers, keyword, name) of a declaration's code, or None."""
    modifiers = []
    pos = 0
    while True:
        m = TOKEN.match(code, pos)
        if not m:
            return None
        word = m.group(1)
        after = code[m.end():m.end() + 1]
        if word == "class":  # a modifier when a keyword or another modifier follows
            nxt = TOKEN.match(code, m.end())
            if nxt and (nxt.group(1) in KEYWORDS or nxt.group(1) in MODIFIERS):
                modifiers.append(word)
                pos = m.end()
                continue
        if word in KEYWORDS and (word != "init" or after in ("", "(", "?", "!", "<", " ")):
            nm = NAME.match(code, m.end())
            return modifiers, word, nm.group(1) if nm else ""
        if word in MODIFIERS or word in ("package", "internal", "private", "fileprivate"):
            modifiers.append(word)
            pos = m.end()
            continue
        return None


def scan(path):
    """[(line number, text, documented)] for the public declarations in one file, and the enum cases."""
    with open(path, encoding="utf-8") as f:
        lines = lex(f.read())
    declarations, cases, spis = [], [], []
    depth = 0
    types = []  # (body depth, keyword, is public, is SPI)
    pending_doc = False
    i = 0
    while i < len(lines):
        line = lines[i]
        start = i
        while types and depth < types[-1][0]:
            types.pop()
        if not line.code:
            if line.string:
                pending_doc = False
            elif line.doc:
                pending_doc = True
            elif line.comment or not line.text.strip():
                pending_doc = False
            i += 1
            continue
        if DIRECTIVE.match(line.code):
            i += 1
            depth += line.code.count("{") - line.code.count("}")
            continue
        rest, i = strip_attributes(lines, i)
        spi = any("@_spi(" in lines[k].code for k in range(start, i + 1)) or any(t[3] for t in types)
        if not rest:  # attribute-only line(s): the doc comment still applies
            for k in range(start, i + 1):
                depth += lines[k].code.count("{") - lines[k].code.count("}")
            i += 1
            continue
        # `/** ... */ public func` on one line
        documented = pending_doc or (lines[start].doc and lines[start].text.lstrip().startswith("/**"))
        pending_doc = False
        decl = parse_declaration(rest)
        line_depth = depth
        for k in range(start, i + 1):
            depth += lines[k].code.count("{") - lines[k].code.count("}")
        if decl:
            modifiers, keyword, _ = decl
            inside = types[-1] if types and types[-1][0] == line_depth else None
            text = lines[i].text.strip()
            if keyword in ("extension", "import"):
                pass
            elif spi:
                if "public" in modifiers or "open" in modifiers:
                    spis.append((i + 1, text, documented))
            elif "public" in modifiers or "open" in modifiers:
                if keyword == "case":
                    if inside and inside[1] == "enum" and inside[2]:
                        cases.append((i + 1, text, documented))
                else:
                    declarations.append((i + 1, text, documented))
            elif inside and inside[1] == "protocol" and inside[2] and keyword in REQUIREMENT_KEYWORDS:
                declarations.append((i + 1, text, documented))
            elif keyword == "case" and inside and inside[1] == "enum" and inside[2]:
                cases.append((i + 1, text, documented))
            if keyword in TYPE_KEYWORDS:
                types.append((line_depth + 1, keyword, "public" in modifiers or "open" in modifiers, spi))
        i += 1
    return declarations, cases, spis


def module_files(module):
    base = os.path.join(ROOT, "Sources", module)
    found = []
    for directory, subdirs, files in os.walk(base):
        subdirs.sort()
        found += [os.path.join(directory, f) for f in files if f.endswith(".swift")]
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description="Doc-comment coverage of public declarations per module.")
    parser.add_argument("modules", nargs="*", default=MODULES, help="modules to scan (default: the libraries)")
    parser.add_argument("--list", action="store_true", help="print every undocumented declaration")
    parser.add_argument("--min", type=float, help="exit 1 when a module's coverage is below this percentage")
    parser.add_argument("--cases", action="store_true", help="also count the cases of public enums")
    args = parser.parse_args()

    rows, missing = [], []
    for module in args.modules:
        if not os.path.isdir(os.path.join(ROOT, "Sources", module)):
            parser.error(f"no module Sources/{module}")
        total = documented = spi = 0
        for path in module_files(module):
            declarations, cases, spis = scan(path)
            spi += len(spis)
            if args.cases:
                declarations = sorted(declarations + cases)
            rel = os.path.relpath(path, ROOT)
            for number, text, ok in declarations:
                total += 1
                documented += ok
                if not ok:
                    missing.append(f"{rel}:{number}: {text}")
        rows.append((module, total, documented, spi))

    if args.list:
        for entry in missing:
            print(entry)
        if missing:
            print()
    percent = lambda t, d: 100.0 * d / t if t else 100.0
    print(f"{'module':<14} {'public':>7} {'documented':>11} {'percent':>8} {'spi':>5}")
    for module, total, documented, spi in rows:
        print(f"{module:<14} {total:>7} {documented:>11} {percent(total, documented):>7.1f}% {spi:>5}")
    all_total, all_documented = sum(r[1] for r in rows), sum(r[2] for r in rows)
    all_spi = sum(r[3] for r in rows)
    print(f"{'total':<14} {all_total:>7} {all_documented:>11} {percent(all_total, all_documented):>7.1f}% {all_spi:>5}")

    if args.min is not None:
        below = [(m, t, d) for m, t, d, _ in rows if d * 100.0 < args.min * t]
        for module, total, documented in below:
            print(f"doc-coverage: {module} is at {percent(total, documented):.1f}% "
                  f"({total - documented} undocumented), below {args.min:g}%", file=sys.stderr)
        if below:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
