#!/usr/bin/env bash
# Writes its stdin and a few environment variables to $HOOK_OUT (for payload tests).
cat > "$HOOK_OUT"
{
  echo "EVENT=$HERMES_HOOK_EVENT"
  echo "HOME_=$HERMES_HOME"
  echo "SESSION=$HERMES_SESSION_ID"
  echo "PROJECT=${CLAUDE_PROJECT_DIR-}"
  echo "ENVFILE=${CLAUDE_ENV_FILE-}"
  echo "PLUGIN=${CLAUDE_PLUGIN_ROOT-}"
  echo "EXTRA=${HOOK_EXTRA-}"
  echo "PWD=$PWD"
} > "$HOOK_OUT.env"
