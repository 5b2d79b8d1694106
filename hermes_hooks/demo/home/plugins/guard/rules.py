import re

DESTRUCTIVE = ("rm -rf /", "mkfs", ":(){ :|:& };:")
_SECRET = re.compile(r"(sk-[A-Za-z0-9]{6,}|AKIA[0-9A-Z]{16})")


def redact(text):
    return _SECRET.sub("[redacted]", text)
