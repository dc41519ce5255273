#!/bin/sh
# Launch script of the demo job: the same training run twice, first with
# the input pipeline in the training loop (DataLoader num_workers=0), then
# with two loader worker processes (num_workers=2). Nothing else differs.
# Needs python3 with torch (Debian: apt-get install python3-torch).
set -e
cd "$(dirname "$0")"
PY=${PYTHON:-/usr/bin/python3}
mkdir -p logs
"$PY" train.py --workers 0 --out prof/before >logs/before.log
"$PY" train.py --workers 2 --out prof/after >logs/after.log
