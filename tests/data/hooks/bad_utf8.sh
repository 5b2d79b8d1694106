#!/usr/bin/env bash
cat > /dev/null
printf '{"context": "caf\xe9 \xff\xfe ok"}\n'
printf 'bad \xc3\x28 bytes\n' >&2
