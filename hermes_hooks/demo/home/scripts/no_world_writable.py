"""Demo Claude Code hook (from settings.json): denies making files writable by everyone, with
Claude Code's JSON answer (hookSpecificOutput.permissionDecision)."""

import json
import re
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if re.search(r"chmod\s+(-R\s+)?(0?777|a\+w|o\+w)", command):
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no-world-writable: keep permissions tight (chmod 755/644)",
        }
    }
    print(json.dumps(answer))
