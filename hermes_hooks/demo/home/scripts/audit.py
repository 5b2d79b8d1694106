"""Demo shell hook: appends one JSON line per finished tool call to $HERMES_HOME/audit.log."""

import json
import os
import sys

event = json.load(sys.stdin)
record = {
    "event": event["hook_event_name"],
    "tool": event.get("tool_name"),
    "input": event.get("tool_input"),
    "status": event.get("extra", {}).get("status"),
}
with open(os.path.join(os.environ["HERMES_HOME"], "audit.log"), "a", encoding="utf-8") as log:
    log.write(json.dumps(record) + "\n")
