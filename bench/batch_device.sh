#!/usr/bin/env bash
# bench/batch.py on a many-core machine that has no answerx environment: one call does it.
#
#   bash bench/batch_device.sh            # 400,000 rows extract, 100,000 verify, 1..16 workers
#   PYTHON=.venv/bin/python bash bench/batch_device.sh --small   # a rehearsal: 3,000 rows, 1/2/4 workers
#
# What it needs beside the repository (both ignored by git, carried with the call):
#   .whl/      wheels of what the machine lacks (pydantic and its parts, math-verify,
#              latex2sympy2_extended, antlr4, and the sympy/mpmath answerx is tested with),
#              installed into /tmp/site when the Python is 3.12 (the wheels' version);
#   .devdata/  the three corpus files bench/corpus.py reads (ANSWERX_CORPUS).
# It writes the Markdown report to $OUT/batch16.md (rewritten after every run, so a run cut
# short still leaves the rows it finished) and the JSON lines to $OUT/batch16.log.
# Sizes: EXTRACT_ROWS and VERIFY_ROWS override them; WORKERS the worker counts; REPEAT the
# runs per configuration (each figure their median; 1 takes about 400 s on 16 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
OUT=${OUT:-/tmp/answerx-batch-device}
mkdir -p "$OUT"
EXTRACT_ROWS=${EXTRACT_ROWS:-400000}
VERIFY_ROWS=${VERIFY_ROWS:-100000}
WORKERS=${WORKERS:-1,2,4,8,16}
REPEAT=${REPEAT:-1}
if [ "${1:-}" = "--small" ]; then
    EXTRACT_ROWS=3000 VERIFY_ROWS=3000 WORKERS=1,2,4  # verify too: more than one batch, so a pool
fi

started=$(date +%s)
# The wheels are built for CPython 3.12 (the machine's); another Python (a rehearsal in the
# project's own environment) already has them.
if [ -d .whl ] && "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl
    export PYTHONPATH="$PWD/src:/tmp/site"
    # Bytecode once, before any timed run: installed with --no-compile, every fresh
    # interpreter (each run, its fork server) would otherwise compile sympy and
    # math-verify from source wherever it cannot write __pycache__, and the verify parent's
    # start (its math-verify warm-up, timed apart by bench/batch.py) would include that.
    "$PYTHON" -m compileall -q -j 0 /tmp/site src >/dev/null || true
else
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
fi
export ANSWERX_CORPUS=${ANSWERX_CORPUS:-$PWD/.devdata}
export PYTHONUNBUFFERED=1

# Fails here, in seconds, when a module the run needs is missing.
"$PYTHON" -c 'import answerx.batch, answerx.batch._warm, math_verify, pyarrow, sys; print("python", sys.version.split()[0], "pyarrow", pyarrow.__version__, "cores", len(__import__("os").sched_getaffinity(0)))'

set -o pipefail
"$PYTHON" bench/batch.py --rows "$EXTRACT_ROWS" --verify-rows "$VERIFY_ROWS" \
    --workers "$WORKERS" --repeat "$REPEAT" --work /tmp/answerx-bench --markdown "$OUT/batch16.md" \
    2>&1 | tee "$OUT/batch16.log"
echo "batch_device.sh: $(( $(date +%s) - started )) s in all" | tee -a "$OUT/batch16.md"
