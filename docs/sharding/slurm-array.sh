#!/usr/bin/env bash
# A Slurm job array: 16 tasks, each runs one shard (the index comes from
# SLURM_ARRAY_TASK_ID, relative to SLURM_ARRAY_TASK_MIN); a dependent job merges them.
#   sbatch docs/sharding/slurm-array.sh
#SBATCH --job-name=funnellab-run
#SBATCH --array=0-15
#SBATCH --cpus-per-task=2
#SBATCH --output=logs/%x-%a.out
set -euo pipefail

if [ "${1:-}" = "merge" ]; then
  funnellab merge parts/part-*.json --format json -o result.json
  exit 0
fi

mkdir -p parts logs
funnellab run experiments/klick-onboarding.json --users 100000000 --shards 16 \
  -o "parts/part-${SLURM_ARRAY_TASK_ID}.json"

# The last task to start submits the merge, to run once every task has finished:
if [ "${SLURM_ARRAY_TASK_ID}" = "${SLURM_ARRAY_TASK_MAX:-15}" ]; then
  sbatch --dependency="afterok:${SLURM_ARRAY_JOB_ID}" --job-name=funnellab-merge "$0" merge
fi
