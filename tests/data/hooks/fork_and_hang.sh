#!/usr/bin/env bash
# Forks a long sleep into the background (recording its pid), then hangs past any timeout.
sleep 60 &
echo $! > "$HOOK_OUT"
sleep 30
