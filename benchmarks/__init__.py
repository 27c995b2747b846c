"""Speed benchmarks, run as `python -m benchmarks.<name>`.

Every script runs offline, without Chroma telemetry, and with one torch thread unless the
environment says otherwise: on a shared 2-core machine two OpenMP threads contending with
other work made one query embedding about 10x slower (the test suite does the same).
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("OMP_NUM_THREADS", "1")
