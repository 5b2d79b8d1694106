#!/usr/bin/env bash
# Claude Code SessionStart hook: exports variables through $CLAUDE_ENV_FILE, adds context.
cat > /dev/null
if [ -n "$CLAUDE_ENV_FILE" ]; then
  echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
  echo "export GREETING='hello world'" >> "$CLAUDE_ENV_FILE"
fi
echo "Session context from the hook."
