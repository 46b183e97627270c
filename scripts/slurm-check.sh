#!/usr/bin/env bash
# The Slurm example run on a real Slurm: a single-node cluster (munged, slurmctld, slurmd) in a
# temporary folder, `sbatch docs/sharding/slurm-array.sh` unchanged from a scratch copy of the
# files it reads, then its merged result compared byte for byte with one `funnellab run`.
#
#   scripts/slurm-check.sh                          # 16000 users (16 shards of 1000)
#   FUNNELLAB_USERS=64000 scripts/slurm-check.sh    # the example reads FUNNELLAB_USERS
#   SLURM_CHECK_KEEP=1 scripts/slurm-check.sh       # keep the folder (config, logs, parts)
#
# Runs as root (the daemons run as root), with the release binary (`swift build -c release
# --product funnellab`, or CI's long stage; FUNNELLAB_BIN names another). Installs Debian's
# slurm-wlm and munge when missing. Stops every daemon it started on exit; writes nothing into
# the repository. Exit codes: 0 the merged result is the single run's bytes; 1 a failure (said
# on stderr); 69 slurm-wlm or munge is missing and apt-get could not install it (CI warns).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
example=docs/sharding/slurm-array.sh
spec=experiments/klick-onboarding.json
users="${FUNNELLAB_USERS:-16000}"
timeout_s="${SLURM_CHECK_TIMEOUT:-120}"

say() { printf 'slurm-check: %s\n' "$*"; }
fail() { printf 'slurm-check: %s\n' "$*" >&2; exit 1; }

# 1. Root, the binary, the packages.
[[ $(id -u) -eq 0 ]] || fail "run as root: the single-node cluster's daemons run as root"
bin="${FUNNELLAB_BIN:-$(swift build -c release --show-bin-path)/funnellab}"
[[ -x $bin ]] || fail "no release binary at $bin: swift build -c release --product funnellab"
tasks=$(sed -n 's/^#SBATCH --array=0-\([0-9][0-9]*\)$/\1/p' "$example")
[[ -n $tasks ]] || fail "$example has no '#SBATCH --array=0-N' line"
tasks=$((tasks + 1))
have() { local tool; for tool; do [[ -x $(command -v "$tool") ]] || return 1; done; }
if ! have slurmctld slurmd sbatch squeue sinfo scontrol munged mungekey; then
  say "installing slurm-wlm and munge (apt-get)"
  apt_log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends slurm-wlm munge </dev/null; } >"$apt_log" 2>&1; then
    tail -5 "$apt_log" >&2
    rm -f "$apt_log"
    echo "slurm-check: warning: apt-get could not install slurm-wlm and munge; no Slurm check" >&2
    exit 69
  fi
  rm -f "$apt_log"
fi

# 2. A single-node cluster in a temporary folder: config, state, spool, logs, munge key.
tmp=$(mktemp -d /tmp/funnellab-slurm.XXXXXX)
pids=()
queued() { timeout 5 squeue -h -o %i 2>/dev/null || true; }
cleanup() {
  local status=$?
  if [[ -n ${SLURM_CONF:-} && -n $(queued) ]]; then
    # Jobs left (a failure): cancel them, give their steps 10 s to end, then stop the daemons.
    timeout 5 scancel --quiet --full 2>/dev/null || true
    local end=$((SECONDS + 10))
    while [[ -n $(queued) ]] && ((SECONDS < end)); do sleep 0.2; done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n ${SLURM_CHECK_KEEP:-} ]]; then echo "slurm-check: kept $tmp" >&2; else rm -rf "$tmp"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp"/{etc,state,spool,log,munge,work}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
export SLURM_CONF="$tmp/etc/slurm.conf"
# No cgroups, no accounting; sched/builtin with batch_sched_delay=0 starts the next array task
# as soon as one ends (the default waits up to 3 s).
cat >"$SLURM_CONF" <<EOF
ClusterName=funnellab-check
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge/munge.key"
logs() {
  local log
  for log in "$tmp"/log/*; do printf '== %s\n' "${log##*/}"; tail -5 "$log"; done
}

# 3. The daemons in the foreground, as background jobs of this shell (stopped by their ids).
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
deadline=$((SECONDS + 5))
until [[ -S $tmp/munge/munge.socket ]] || ((SECONDS >= deadline)); do sleep 0.1; done
[[ -S $tmp/munge/munge.socket ]] || fail "munged did not start:
$(logs)"
slurmctld -D -i >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
  state=$(timeout 5 sinfo -h -N -n "$host" -o %t 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.2
done
[[ $state == idle ]] || fail "the node is not idle after 30 s (state: '${state:-none}'):
$(logs)"
say "Slurm $(sinfo -V | cut -d' ' -f2) up: one node, $host, $(nproc) CPUs"

# 4. The example, unchanged, from a scratch copy of the files it reads.
work="$tmp/work"
mkdir -p "$work/${example%/*}" "$work/${spec%/*}"
cp "$example" "$work/$example"
cp "$spec" "$work/$spec"
cd "$work"
PATH="$(dirname "$bin"):$PATH"
export PATH FUNNELLAB_USERS="$users"
started=$SECONDS
echo "\$ FUNNELLAB_USERS=$users sbatch $example"
submitted=$(sbatch "$example")
echo "$submitted"
array=${submitted##* }
[[ $array =~ ^[0-9]+$ ]] || fail "sbatch did not submit the array: $submitted"

# 5. Wait for the queue to drain: the array, then the merge its last task submitted.
until [[ -z $(timeout 10 squeue -h -o %i || echo unknown) ]]; do
  # A failed task leaves the merge pending for ever (afterok): no need to wait for the timeout.
  if ((SECONDS - started >= timeout_s)) || squeue -h -o %r | grep -q DependencyNeverSatisfied; then
    fail "jobs still queued after $((SECONDS - started)) s:
$(squeue -o '%.10i %.16j %.10T %R')
$(logs)"
  fi
  sleep 0.5
done
jobs=$(scontrol -o show job)
merge=$(sed -n 's/^JobId=\([0-9]*\) .*JobName=funnellab-merge .*/\1/p' <<<"$jobs")
completed=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$jobs" || true)
if [[ -z $merge || $completed -ne $((tasks + 1)) || $(wc -l <<<"$jobs") -ne $((tasks + 1)) ]]; then
  shopt -s nullglob
  outputs=(funnellab-*.out)
  for log in "${outputs[@]:0:3}"; do echo "== $log"; tail -5 "$log"; done >&2
  fail "expected $tasks array tasks and a merge job, each COMPLETED with exit code 0; got:
$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(JobId|ArrayTaskId|JobName|JobState|ExitCode)=/) printf "%s ", $i; print "" }' <<<"$jobs")"
fi
say "$tasks array tasks and merge job $merge COMPLETED, $((SECONDS - started)) s after sbatch"
last="funnellab-run-${array}_$((tasks - 1)).out"
echo "\$ cat $last"
cat "$last"

# 6. The merged result against one run of the same spec and users.
echo "\$ funnellab run $spec --users $users --format json -o single.json"
funnellab run "$spec" --users "$users" --format json -o single.json
echo "\$ cmp result.json single.json && echo identical"
if ! cmp result.json single.json; then
  diff result.json single.json | head -20 >&2 || true
  fail "the merged result is not the single run's bytes"
fi
echo identical
cd "$repo"
