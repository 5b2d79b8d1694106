#!/usr/bin/env python3
"""A transform hook: appends its first argument to the piped value and answers it (both protocols)."""
import json
import os
import sys

payload = json.loads(sys.stdin.readline())
key = os.environ["VALUE_KEY"]
value = payload["extra"][key] if "extra" in payload else payload[key]
print(json.dumps({key: value + sys.argv[1]}))
