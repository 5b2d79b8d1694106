#!/usr/bin/env bash
cat > /dev/null
printf '{"reason": "json on stderr"}\n' >&2
exit 2
