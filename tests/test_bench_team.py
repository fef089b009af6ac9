"""bench/team.py runs with its burst turned off (`--burst 0` once crashed in ThreadPoolExecutor(0))."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "team.py"


def test_team_bench_skips_the_burst_at_zero() -> None:
    small = ["--proposals", "20", "--runs", "2", "--receipts", "30", "--pr", "3", "--runs-each", "1"]
    proc = subprocess.run(
        [sys.executable, str(BENCH), *small, "--burst", "0", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "burst: skipped (--burst 0)" in proc.stdout
    assert "-way burst" not in proc.stdout
