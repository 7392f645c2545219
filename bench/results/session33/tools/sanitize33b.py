"""Session 33 (GPU): sanitize33's last three cases (call 3's run stopped at the cross entropy's
reference), under compute-sanitizer."""
import sys

sys.path.insert(0, "bench/results/session33/tools")
sys.path.insert(0, "scripts")
from sanitize33 import cases  # noqa: E402
from sanitize_schedules import run  # noqa: E402

if __name__ == "__main__":
    run({k: v for k, v in cases.items() if k.startswith(("cross", "conv then", "sort"))})
