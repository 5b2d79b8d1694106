#!/usr/bin/env bash
# Prints $ANSWER on stdout, $ERR on stderr, exits with ${CODE:-0}. Reads stdin first.
cat > /dev/null
[ -n "${ANSWER-}" ] && printf '%s\n' "$ANSWER"
[ -n "${ERR-}" ] && printf '%s\n' "$ERR" >&2
exit "${CODE:-0}"
