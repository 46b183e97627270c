#!/usr/bin/env bash
# A Slurm job array: 16 tasks, each runs one shard (the index comes from
# SLURM_ARRAY_TASK_ID, relative to SLURM_ARRAY_TASK_MIN); a dependent job merges them.
# Submit from the repository's root; logs, parts/ and result.json land there:
#   sbatch docs/sharding/slurm-array.sh
#   FUNNELLAB_USERS=64000 sbatch docs/sharding/slurm-array.sh   # fewer users (default 100000000)
#SBATCH --job-name=funnellab-run
#SBATCH --array=0-15
#SBATCH --cpus-per-task=2
#SBATCH --output=%x-%A_%a.out
set -euo pipefail

mkdir -p parts
funnellab run experiments/klick-onboarding.json --users "${FUNNELLAB_USERS:-100000000}" --shards 16 \
  -o "parts/part-${SLURM_ARRAY_TASK_ID}.json"

# The last task submits the merge; afterok holds it until every task has succeeded.
if [ "${SLURM_ARRAY_TASK_ID}" = "${SLURM_ARRAY_TASK_MAX}" ]; then
  sbatch --dependency="afterok:${SLURM_ARRAY_JOB_ID}" --job-name=funnellab-merge --output=%x-%j.out \
    --wrap="funnellab merge parts/part-*.json --format json -o result.json"
fi
