#!/usr/bin/env python3
"""Renders FunnelLab's HTML reports in headless Chromium and checks what a person sees.

    scripts/browser-check.py [--binary .build/debug/funnellab] [--out .build/browser-check]
                             [--only NAME ...] [--self-test]

For each report (run of every seed flow, experiment mode, grid, power, analyze,
exact, check, sensitivity, predictions, calibrate, plus a six-arm flow, a control-only flow and a
spec under a long path) and each width (1280 px, a laptop; 1024 and 800 px, a tablet held
landscape and portrait; 390 px, a phone) it loads the report,
unchanged, in an <iframe> of that width inside a wrapper page (the headless window is
never narrower than 500 px, an iframe is, and the report's media queries see its
width). A script in the wrapper, not in the report, measures the report's layout and
this script fails when:

- the page scrolls sideways (its content is wider than the viewport);
- a table is wider than its box, at any width (below the width a table needs it becomes
  cards: a table that scrolls sideways hides columns, and its verdicts);
- two texts of a chart overlap, a text runs past its chart's edge (the SVG clips it),
  or a dashed line (the zero line) crosses a text;
- the element with data-role="decision" (what was decided) does not lie wholly inside the
  first screen (1280x900, 1024x768, 800x1280, 390x844), or is missing;
- an element with data-role="verdict" (a verdict, decision or p-value cell) is not wholly
  inside the viewport's width;
- at 390 px, a chart text is smaller than 12 px as drawn (its font size times the SVG's
  width over its view box's), or the page has two sections or more (`<h2>`) and its jump
  list (`nav.jump`) is hidden or does not link to exactly those sections, in order;
- a verdict or the decision lies inside a `<details>` (folded away).

Screenshots of every report at both widths are written to OUT/screenshots for a person
to look at. --self-test breaks a copy of a report on purpose (a table and the page too
wide, overlapping chart labels, a label past the chart's edge, a zero line through a label, a
6 px chart text, a section the jump list lacks, a folded verdict) and fails unless the
checker reports each of those problems. Chromium comes from Debian's `chromium`
package; the script installs it with apt-get when it is missing.

Then axe-core (Deque's accessibility engine; its axe.min.js ships in the PyPI package
axe-playwright-python, fetched with `pip download` into .build/axe when missing) checks every
report at 780 and 1280 px with its default rules (WCAG 2.x A and AA and best practices: every
header cell has text, headings go in order, a region that scrolls can be focused, contrast...),
and any violation fails the check.

Exit codes: 0 all reports pass, 1 a problem was found, 69 no Chromium (or no axe-core) and it
could not be installed, 70 a report could not be produced.
"""

import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import zipfile

WIDTHS = [1280, 1024, 800, 390]
# The first screen at each width: a laptop, a tablet held landscape and portrait, a phone.
SCREEN_HEIGHTS = {1280: 900, 1024: 768, 800: 1280, 390: 844}

# Measures the report in the iframe and writes the problems as JSON into #result.
MEASURE = r"""
<script>
function measure(frame) {
  var d = frame.contentDocument, w = frame.contentWindow, problems = [];
  var width = w.innerWidth;
  if (d.documentElement.scrollWidth > width + 1) {
    problems.push({kind: "page", detail: "content " + d.documentElement.scrollWidth + " px wide in a " + width + " px viewport"});
  }
  var tables = d.querySelectorAll("table");
  for (var i = 0; i < tables.length; i++) {
    var t = tables[i], box = t.parentElement, caption = t.caption ? t.caption.textContent : "table " + (i + 1);
    var scrolls = /(auto|scroll)/.test(w.getComputedStyle(box).overflowX);
    if (t.scrollWidth > box.clientWidth + 1) {
      // A table too wide for its box becomes cards; one that scrolls hides columns (and verdicts).
      problems.push({kind: scrolls ? "table-scroll" : "table-overflow",
        detail: caption + ": " + t.scrollWidth + " px in a " + box.clientWidth + " px box" + (scrolls ? "" : " that does not scroll")});
    }
  }
  // The answer first: the decision lies wholly inside the first screen (1280x900 or 390x844),
  // and on a phone every verdict, decision and p-value cell lies inside the width.
  var screenHeight = ({1280: 900, 1024: 768, 800: 1280, 390: 844})[width] || 900;
  var decision = d.querySelector('[data-role="decision"]');
  if (!decision) {
    problems.push({kind: "no-decision", detail: "no element with data-role=\"decision\""});
  } else {
    var r0 = decision.getBoundingClientRect();
    if (r0.top < 0 || r0.bottom > screenHeight || r0.left < 0 || r0.right > width + 1) {
      problems.push({kind: "decision-off-screen", detail: "the decision spans " + Math.round(r0.top) + "-" + Math.round(r0.bottom) +
        " px down and " + Math.round(r0.left) + "-" + Math.round(r0.right) + " px across; the first screen is " + width + "x" + screenHeight});
    }
  }
  {
    var verdicts = d.querySelectorAll('[data-role="verdict"]');
    for (var v = 0; v < verdicts.length; v++) {
      var rv = verdicts[v].getBoundingClientRect();
      if (rv.width > 0 && (rv.left < -1 || rv.right > width + 1)) {
        problems.push({kind: "verdict-off-screen", detail: "'" + verdicts[v].textContent + "' (" + verdicts[v].getAttribute("data-label") +
          ") spans " + Math.round(rv.left) + "-" + Math.round(rv.right) + " px in a " + width + " px viewport"});
      }
    }
  }
  var svgs = d.querySelectorAll("svg");
  function overlap(a, b, margin) {
    var x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    var y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return x > margin && y > margin;
  }
  for (var s = 0; s < svgs.length; s++) {
    var title = svgs[s].querySelector("title"), name = title ? title.textContent : "chart " + (s + 1);
    var texts = [].slice.call(svgs[s].querySelectorAll("text")).filter(function (e) { return e.textContent.trim() !== ""; });
    var boxes = texts.map(function (e) { return e.getBoundingClientRect(); });
    var frameBox = svgs[s].getBoundingClientRect();
    // On a phone every chart text is at least 12 px as drawn: its font size scaled by the SVG's
    // width over its view box's.
    var viewBox = svgs[s].viewBox && svgs[s].viewBox.baseVal;
    if (width <= 600 && frameBox.width > 0 && viewBox && viewBox.width > 0) {
      for (var f = 0; f < texts.length; f++) {
        var px = parseFloat(w.getComputedStyle(texts[f]).fontSize) * frameBox.width / viewBox.width;
        if (px < 11.95) {
          problems.push({kind: "chart-text-small", detail: name + ": '" + texts[f].textContent + "' is " + px.toFixed(1) + " px"});
        }
      }
    }
    for (var c = 0; c < texts.length; c++) {
      if (boxes[c].right > frameBox.right + 1 || boxes[c].left < frameBox.left - 1) {
        problems.push({kind: "text-clipped", detail: name + ": '" + texts[c].textContent + "' runs past the chart's edge"});
      }
    }
    for (var a = 0; a < texts.length; a++) {
      for (var b = a + 1; b < texts.length; b++) {
        if (overlap(boxes[a], boxes[b], 1)) {
          problems.push({kind: "text-overlap", detail: name + ": '" + texts[a].textContent + "' and '" + texts[b].textContent + "'"});
        }
      }
    }
    var lines = svgs[s].querySelectorAll("line");
    for (var l = 0; l < lines.length; l++) {
      var dash = w.getComputedStyle(lines[l]).strokeDasharray;
      if (!dash || dash === "none") continue;
      var r = lines[l].getBoundingClientRect();
      var box = {left: r.left - 0.5, right: r.right + 0.5, top: r.top - 0.5, bottom: r.bottom + 0.5};
      for (var k = 0; k < texts.length; k++) {
        if (overlap(box, boxes[k], 0)) {
          problems.push({kind: "line-through-text", detail: name + ": a dashed line crosses '" + texts[k].textContent + "'"});
        }
      }
    }
  }
  // On a phone, a page of two sections or more has a jump list linking to exactly its <h2>s.
  var h2s = [].slice.call(d.querySelectorAll("main h2"));
  var nav = d.querySelector("nav.jump");
  if (width <= 600 && h2s.length >= 2) {
    var links = nav && nav.offsetParent !== null ? [].slice.call(nav.querySelectorAll("a")).map(function (a) { return a.getAttribute("href"); }) : [];
    var ids = h2s.map(function (h) { return "#" + h.id; });
    if (links.join(" ") !== ids.join(" ")) {
      problems.push({kind: "jump-list", detail: "the phone's jump list links to [" + links.join(" ") + "], the sections are [" + ids.join(" ") + "]"});
    }
  }
  // No verdict and no decision is folded away.
  var hidden = d.querySelectorAll('details [data-role="verdict"], details [data-role="decision"]');
  if (hidden.length > 0) {
    problems.push({kind: "verdict-folded", detail: hidden.length + " verdict cells inside a <details>"});
  }
  return {width: width, problems: problems};
}
var frame = document.getElementById("report");
frame.addEventListener("load", function () {
  document.getElementById("result").textContent = JSON.stringify(measure(frame));
});
</script>
"""


# Widths axe-core checks at: a tablet beside an editor, and a laptop.
AXE_WIDTHS = [780, 1280]
AXE_PACKAGE = "axe-playwright-python==0.1.8"  # ships axe-core 4.12.1 as axe.min.js

# Runs axe-core in the report (a copy with axe injected) and writes its violations into the body.
AXE_RUNNER = r"""
<script>
axe.run(document).then(function (r) {
  var v = r.violations.map(function (x) {
    return {kind: "axe " + x.id, detail: x.help + " (" + x.nodes.length + " node" + (x.nodes.length === 1 ? "" : "s") + ": " +
      x.nodes.slice(0, 3).map(function (n) { return n.target.join(" "); }).join("; ") + ")"};
  });
  document.body.setAttribute("data-axe", JSON.stringify(v));
}, function (e) { document.body.setAttribute("data-axe", JSON.stringify([{kind: "axe error", detail: String(e)}])); });
</script>
"""

# Waits in the wrapper for the report's axe results and copies them into #result.
AXE_WAIT = r"""
<script>
var frame = document.getElementById("report");
function poll() {
  var b = frame.contentDocument && frame.contentDocument.body, v = b && b.getAttribute("data-axe");
  if (v) { document.getElementById("result").textContent = JSON.stringify({problems: JSON.parse(v)}); } else { setTimeout(poll, 200); }
}
frame.addEventListener("load", poll);
</script>
"""


def axe_script(out):
    """The path of axe.min.js, fetched from PyPI into OUT/../axe when missing; None if impossible."""
    folder = os.path.join(".build", "axe")
    path = os.path.join(folder, "axe.min.js")
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    fetch = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder, AXE_PACKAGE],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wheels = [f for f in os.listdir(folder) if f.endswith(".whl")]
    if fetch.returncode != 0 or not wheels:
        return None
    with zipfile.ZipFile(os.path.join(folder, wheels[0])) as z:
        name = next((n for n in z.namelist() if n.endswith("/axe.min.js")), None)
        if name is None:
            return None
        with open(path, "wb") as f:
            f.write(z.read(name))
    return path


def axe_check(browser, axe, named_reports, out):
    """axe-core's violations of every report at each of AXE_WIDTHS: {(name, width): problems}."""
    found = {}
    for name, path in named_reports:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        injected = os.path.join(out, f"axe-{name}.html")
        script = '<script src="' + html.escape("file://" + os.path.abspath(axe), quote=True) + '"></script>'
        with open(injected, "w", encoding="utf-8") as f:
            f.write(text.replace("</body>", script + AXE_RUNNER + "</body>", 1))
        for width in AXE_WIDTHS:
            page = os.path.join(out, f"wrap-axe-{name}-{width}.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write(wrapper(injected, width, measure=False, script=AXE_WAIT))
            found[(name, width)] = measure(browser, page, width)
    return found


# Tall enough for the longest report (experiment mode with its funnels, charts and tables)
# to be photographed whole.
SHOT_HEIGHT = 16000


def wrapper(report, width, measure, height=7000, script=""):
    """A page holding `report` in an iframe `width` px wide and `height` px tall (and the
    measuring script)."""
    src = html.escape("file://" + os.path.abspath(report), quote=True)
    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"/></head><body style="margin:0">'
        f'<iframe id="report" src="{src}" width="{width}" height="{height}" style="border:0;display:block"></iframe>'
        '<pre id="result">not measured</pre>'
    )
    return page + (MEASURE if measure else script) + "</body></html>"


def chromium():
    """The Chromium executable, installed from Debian when missing; None if impossible."""
    for name in ["chromium", "chromium-browser", "google-chrome"]:
        path = shutil.which(name)
        if path:
            return path
    print("browser-check: chromium is missing; installing Debian's chromium package", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]]:
        if subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            return None
    return shutil.which("chromium")


BROWSER_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files",
    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
]


def measure(browser, page_path, width):
    """The problems the wrapper at `page_path` measured, as a list of dicts."""
    result = subprocess.run(
        [browser] + BROWSER_FLAGS + [f"--window-size={width + 40},900", "--virtual-time-budget=10000", "--dump-dom",
                                     "file://" + os.path.abspath(page_path)],
        capture_output=True, text=True, timeout=180)
    start = result.stdout.find('<pre id="result">')
    end = result.stdout.find("</pre>", start)
    if start < 0 or end < 0:
        return [{"kind": "no-measurement", "detail": "Chromium printed no result (exit %d)" % result.returncode}]
    text = html.unescape(result.stdout[start + len('<pre id="result">'):end])
    try:
        return json.loads(text)["problems"]
    except (ValueError, KeyError):
        return [{"kind": "no-measurement", "detail": text[:200]}]


def screenshot(browser, page_path, width, png):
    subprocess.run(
        [browser] + BROWSER_FLAGS + [f"--window-size={max(width, 500)},{SHOT_HEIGHT}", "--screenshot=" + os.path.abspath(png),
                                     "file://" + os.path.abspath(page_path)],
        capture_output=True, timeout=180)


# A spec under a long path (a deep checkout, a long branch name): ids and paths must wrap.
LONG_PATH = os.path.join(".build", "browser-check", "a-rather-long-folder-name-of-a-ci-checkout-0123456789",
                         "experiments-of-the-onboarding-team", "klick-onboarding-with-a-long-name.json")


def reports(binary, folder, only=None):
    """Writes the HTML reports the README and docs/ mention (those named in `only`, else all) into
    `folder`; returns (name, path)."""
    os.makedirs(os.path.dirname(LONG_PATH), exist_ok=True)
    shutil.copyfile("experiments/klick-onboarding.json", LONG_PATH)
    specs = ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]
    commands = [(f"run-{s}", ["run", f"experiments/{s}.json", "--users", "20000", "--quiet"]) for s in specs]
    commands += [
        ("experiment-betfree", ["run", "experiments/betfree-onboarding.json", "--mode", "experiment", "--users", "20000", "--quiet"]),
        ("experiment-klick", ["run", "experiments/klick-onboarding.json", "--mode", "experiment", "--users", "20000", "--quiet"]),
        ("grid-klick", ["grid", "experiments/klick-onboarding.json", "--users", "5000", "--quiet"]),
        ("grid-exact-1000", ["grid", "Benchmarks/specs/klick-grid-1000.json", "--exact", "--quiet"]),
        ("power-formula", ["power", "--baseline", "0.1", "--mde", "0.02"]),
        ("power-klick", ["power", "experiments/klick-onboarding.json", "--replicates", "200", "--users-per-day", "5000"]),
        ("analyze-klick", ["analyze", "--data", "experiments/data/klick-results.csv"]),
        ("analyze-segments", ["analyze", "--data", "experiments/data/klick-segments.csv"]),
        ("power-betfree", ["power", "experiments/betfree-onboarding.json", "--variant", "yearlyPrice4999", "--replicates", "500"]),
        ("assurance-betfree", ["power", "experiments/betfree-onboarding.json", "--variant", "defaultLifetime", "--replicates", "300", "--parameter-uncertainty", "--draws", "40"]),
        ("analyze-over-time", ["analyze", "--data", "experiments/data/klick-daily.csv", "--planned-users", "28000"]),
        ("experiment-over-time", ["run", "experiments/klick-onboarding.json", "--mode", "experiment", "--users-per-day", "20000", "--days", "14", "--variant", "features5", "--quiet"]),
        ("bandit-klick", ["power", "experiments/klick-onboarding.json", "--compare-bandit", "--users-per-day", "20000", "--replicates", "500", "--holdout", "0.05"]),
        ("bandit-run-klick", ["run", "experiments/klick-onboarding.json", "--mode", "bandit", "--users-per-day", "20000", "--days", "14", "--quiet"]),
        ("exact-betfree", ["exact", "experiments/betfree-onboarding.json"]),
        ("exact-ncdb", ["exact", "experiments/ncdb-first-launch.json"]),
        ("check-all", ["check", "experiments/klick-onboarding.json", "experiments/urbannest-onboarding.json"]),
        ("check-baseline", ["check", "experiments/klick-onboarding.json", "--baseline", "experiments/baselines/klick-onboarding.json"]),
        ("predictions-betfree", ["exact", "experiments/betfree-onboarding.json", "--parameter-uncertainty", "--draws", "40"]),
        ("calibrate-urbannest", ["calibrate", "experiments/urbannest-onboarding.json", "experiments/urbannest-observed.csv"]),
        ("calibrate-past-tests", ["calibrate", "experiments/betfree-onboarding.json", "experiments/data/betfree-paywall-tests.csv", "--variants", "control,defaultMonthly", "--fit", "defaultPlanBias", "--no-profile"]),
        ("power-revenue-betfree", ["power", "experiments/betfree-onboarding.json", "--metric", "revenuePerUser", "--replicates", "500"]),
        ("analyze-margin", ["analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01"]),
        ("analyze-users", ["analyze", "--users-file", "experiments/data/betfree-users.csv", "--metric", "revenue",
                           "--covariate", "pre_sessions", "--ratio", "revenue/purchases"]),
        ("infer-klick", ["infer", "experiments/data/klick-events.ndjson", "--events-map", "experiments/data/klick-events-map.json",
                         "--variant-property", "variant", "--variant", "control"]),
        ("six-arms-truth", ["run", "Tests/Fixtures/decisions/six-arms.json", "--users", "5000", "--quiet"]),
        ("six-arms-experiment", ["run", "Tests/Fixtures/decisions/six-arms.json", "--mode", "experiment", "--users", "5000", "--quiet"]),
        ("control-only", ["run", "Tests/Fixtures/decisions/control-only.json", "--mode", "experiment", "--users", "2000", "--quiet"]),
        ("check-long-path", ["check", LONG_PATH]),
        ("sensitivity-betfree", ["sensitivity", "experiments/betfree-onboarding.json", "--vary", "priceSensitivity=0.5:2:0.1", "--vary", "defaultPlanBias=0:2:0.25", "--metric", "revenuePerUser"]),
    ]
    made = []
    for name, arguments in commands:
        if only and name not in only:
            continue
        path = os.path.join(folder, name + ".html")
        # infer writes its spec to -o and its report to --report.
        output = ["--report", path, "-o", os.devnull] if arguments[0] == "infer" else ["-o", path]
        run = subprocess.run([binary] + arguments + ["--format", "html"] + output, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"browser-check: {name}: funnellab {' '.join(arguments)} failed: {run.stderr.strip()}", file=sys.stderr)
            sys.exit(70)
        made.append((name, path))
    return made


def check(browser, named_reports, out, shots=True):
    """Measures every report at every width; returns {(name, width): problems}."""
    found = {}
    os.makedirs(os.path.join(out, "screenshots"), exist_ok=True)
    for name, path in named_reports:
        for width in WIDTHS:
            page = os.path.join(out, f"wrap-{name}-{width}.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write(wrapper(path, width, measure=True))
            found[(name, width)] = measure(browser, page, width)
            if shots:
                plain = os.path.join(out, f"shot-{name}-{width}.html")
                with open(plain, "w", encoding="utf-8") as f:
                    f.write(wrapper(path, width, measure=False, height=SHOT_HEIGHT))
                screenshot(browser, plain, width, os.path.join(out, "screenshots", f"{name}-{width}.png"))
    return found


BREAKAGE = """<img src="missing.png"/><style>table { min-width: 1500px; } body { min-width: 1400px; } [data-role="decision"] { margin-top: 2000px !important; }</style>
<svg viewBox="0 0 200 60" width="200" height="60"><title>broken chart</title>
<text x="10" y="30">overlapping label</text><text x="14" y="32">another label</text>
<text x="120" y="55">a label far too long for its chart</text>
<line x1="0" y1="27" x2="200" y2="27" stroke="#000" stroke-dasharray="4 3"/></svg>
<svg viewBox="0 0 2000 100" style="width: 300px"><title>shrunk chart</title><text x="10" y="50">tiny</text></svg>
<h2 id="not-in-the-jump-list">A section the jump list lacks</h2>
<details><summary>folded</summary><p data-role="verdict">a folded verdict</p></details>
"""


def self_test(browser, named_reports, out, axe=None):
    """Breaks a copy of a report on purpose; the checker must report every breakage (and, with
    axe-core, the image without a text alternative)."""
    name, path = named_reports[0]
    broken = os.path.join(out, "broken.html")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(broken, "w", encoding="utf-8") as f:
        f.write(text.replace("</main>", BREAKAGE + "</main>", 1))
    found = check(browser, [("broken", broken)], out, shots=False)
    kinds = {width: {p["kind"] for p in problems} for (_, width), problems in found.items()}
    expected = {1280: {"page", "table-scroll", "text-overlap", "line-through-text", "text-clipped", "decision-off-screen",
                       "verdict-off-screen"},
                390: {"page", "text-overlap", "line-through-text", "text-clipped", "decision-off-screen", "verdict-off-screen",
                      "chart-text-small", "jump-list", "verdict-folded"}}
    ok = True
    for width, wanted in expected.items():
        missing = wanted - kinds.get(width, set())
        if missing:
            ok = False
            print(f"browser-check self-test: at {width} px the broken copy was not flagged for {sorted(missing)}")
    if axe:
        flagged = axe_check(browser, axe, [("broken", broken)], out)
        if not any(p["kind"] == "axe image-alt" for p in flagged.get(("broken", 1280), [])):
            ok = False
            print("browser-check self-test: axe-core did not flag the image without alt text: %s" % flagged)
    print("browser-check self-test: " + ("the broken copy is flagged for every breakage" if ok else "FAILED"))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=".build/debug/funnellab")
    parser.add_argument("--out", default=".build/browser-check")
    parser.add_argument("--only", nargs="*", help="report names to check (default: all)")
    parser.add_argument("--self-test", action="store_true", help="only check that a broken copy is flagged")
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    browser = chromium()
    if browser is None:
        print("browser-check: no Chromium, and apt-get install -y chromium failed", file=sys.stderr)
        return 69
    folder = os.path.join(args.out, "reports")
    os.makedirs(folder, exist_ok=True)
    if args.self_test and not args.only:
        args.only = ["experiment-betfree"]
    axe = axe_script(args.out)
    if axe is None:
        print(f"browser-check: axe-core could not be fetched (pip download {AXE_PACKAGE})", file=sys.stderr)
        return 69
    named = reports(args.binary, folder, args.only)
    if args.self_test:
        return 0 if self_test(browser, named, args.out, axe) else 1
    found = check(browser, named, args.out)
    found.update({(name, f"axe {width}"): p for (name, width), p in axe_check(browser, axe, named, args.out).items()})
    failures = 0
    for (name, width), problems in sorted(found.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        status = "ok" if not problems else f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        print(f"{name:24} {width:>9} px  {status}")
        for p in problems:
            print(f"    {p['kind']}: {p['detail']}")
        failures += len(problems)
    print(f"screenshots: {os.path.join(args.out, 'screenshots')}/<report>-<width>.png")
    print("browser-check: " + ("every report passes at 1280, 1024, 800 and 390 px, and axe-core finds no violation at 780 and 1280 px"
                               if failures == 0 else f"{failures} problems"))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
