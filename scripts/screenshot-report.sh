#!/usr/bin/env bash
# Renders an HTML report of FunnelLab with headless Chromium to PNG, for a visual
# check of its charts (not part of `swift test`).
#
#   scripts/screenshot-report.sh [report.html] [out.png] [width]
#
# Without a report, builds funnellab and renders the Klick experiment
# (`funnellab run experiments/klick-onboarding.json --format html`). Width defaults
# to 1280 (a laptop); try 390 for a phone. Needs `chromium`
# (apt-get install -y chromium). The page loads with networking disabled: a report
# that needed the network would show it.
set -euo pipefail
cd "$(dirname "$0")/.."
html="${1:-}"
png="${2:-${TMPDIR:-/tmp}/funnellab-report.png}"
width="${3:-1280}"
if [[ -z "$html" ]]; then
  html="$(mktemp -d)/klick.html"
  flock /tmp/swift-build.lock swift build --product funnellab >/dev/null
  .build/debug/funnellab run experiments/klick-onboarding.json --users 200000 --quiet --format html -o "$html"
fi
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [[ -z "$browser" ]]; then
  echo "error: no chromium found; install it with: apt-get install -y chromium" >&2
  exit 69
fi
# Tall enough for the whole page; Chromium crops to the window.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --proxy-server='127.0.0.1:9' \
  --proxy-bypass-list='<-loopback>' --window-size="${width},${HEIGHT:-6000}" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$html")" 2>/dev/null
echo "wrote $png from $html (${width}px wide)"
