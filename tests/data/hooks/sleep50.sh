#!/usr/bin/env bash
# Sleeps $1 seconds (default 0.05) after reading its payload; notes that it ran in $HOOK_OUT.
cat > /dev/null
sleep "${1:-0.05}"
if [ -n "$HOOK_OUT" ]; then echo ran >> "$HOOK_OUT"; fi
