#!/usr/bin/env bash
# Claude Code Stop hook: keeps the agent going, reporting stop_hook_active in the reason.
input=$(cat)
active=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stop_hook_active"])')
printf '{"decision": "block", "reason": "run the tests (active=%s)"}\n' "$active"
