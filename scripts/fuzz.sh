#!/usr/bin/env bash
# The long fuzz run: the generator of the in-process fuzz suite (Sources/FunnelFuzz),
# run as subprocesses of the release binary, one case at a time with a per-case
# timeout, counting outcomes (exit codes, traps/signals, hangs) and findings
# (undocumented exit codes, outputs changed by a failing run, raw markup…).
#
#   scripts/fuzz.sh [cases] [seed]          # default: 100000 cases, seed 1
#   FUZZ_TIMEOUT=60 FUZZ_START=0 scripts/fuzz.sh 20000
#
# Exits 0 when no case broke a promise. Build under the shared lock when one exists.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES="${1:-100000}"
SEED="${2:-1}"
LOCK=()
if [ -e /tmp/swiftpm.lock ]; then LOCK=(flock /tmp/swiftpm.lock); fi
"${LOCK[@]}" swift build -c release --product funnellab
"${LOCK[@]}" swift build -c release --product funnellab-fuzz
BIN="$(swift build -c release --show-bin-path)"
exec "$BIN/funnellab-fuzz" --binary "$BIN/funnellab" --cases "$CASES" --seed "$SEED" \
  --timeout "${FUZZ_TIMEOUT:-60}" --start "${FUZZ_START:-0}" ${FUZZ_EXTRA:-}
