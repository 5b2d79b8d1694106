#!/usr/bin/env python3
"""Prints 50 MB on stdout."""
import sys

chunk = b"x" * (1 << 20)
for _ in range(50):
    sys.stdout.buffer.write(chunk)
