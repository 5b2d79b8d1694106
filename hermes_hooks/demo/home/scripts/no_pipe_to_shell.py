"""Demo shell hook (config.yaml, Hermes protocol): exit 2 with a reason on stderr blocks the call."""

import json
import re
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if re.search(r"curl[^|]*\|\s*(ba)?sh", command):
    print("no-pipe-to-shell: download the script and read it before running it", file=sys.stderr)
    sys.exit(2)
