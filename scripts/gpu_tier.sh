#!/usr/bin/env bash
# Run the GPU tier (tests marked `gpu`) on a GPU runner and write the results to a file.
#   scripts/gpu_tier.sh [OUTPUT_DIR]     (default: benchmarks/results)
# Covers CUDA autocast with fp16 + GradScaler and bf16 (tests/gpu/test_gpu_amp.py), NCCL DDP when
# at least 2 GPUs are present (tests/gpu/test_gpu_ddp.py), every notebook and its answer variants
# on CUDA (tests/gpu/test_gpu_notebooks.py), and grading on a GPU worker (tests/gpu/test_gpu_grading.py).
# Without CUDA every one of them is skipped with its reason, and the file says so.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-benchmarks/results}
mkdir -p "$OUT"
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
{
  echo "# GPU tier, $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
  "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'devices', torch.cuda.device_count())"
} > "$OUT/gpu_tier.txt" 2>&1
"$PY" -m pytest -m gpu -rA -q -p no:cacheprovider --junitxml="$OUT/gpu_tier.xml" \
  tests/gpu/test_gpu_amp.py tests/gpu/test_gpu_ddp.py tests/gpu/test_gpu_grading.py tests/gpu/test_gpu_notebooks.py \
  -n "${GPU_TIER_WORKERS:-4}" 2>&1 | tee -a "$OUT/gpu_tier.txt"
status=${PIPESTATUS[0]}
echo "exit status: $status" >> "$OUT/gpu_tier.txt"
exit "$status"
