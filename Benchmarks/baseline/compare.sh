#!/bin/sh
# FunnelLab vs the numpy baseline on Klick control, in one session on this machine.
# Holds the shared build lock for the whole comparison (build, FunnelLab, numpy), so
# that no build runs beside the timings. Run from anywhere:
#
#   sh Benchmarks/baseline/compare.sh [USERS] [FUNNELLAB_RUNS] [NUMPY_RUNS]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
users=${1:-4000000}
fl_runs=${2:-7}
np_runs=${3:-3}
exec flock /tmp/swift-build.lock sh -c "
  set -eu
  cd '$here'
  swift build -c release --product funnel-baseline >/dev/null
  .build/release/funnel-baseline export --out baseline/out --users $users --runs $fl_runs
  python3 baseline/klick_numpy.py --out baseline/out --runs $np_runs
"
