#!/usr/bin/env bash
# Hermes protocol: blocks terminal commands containing "rm -rf".
input=$(cat)
case "$input" in
  *'rm -rf'*) printf '{"action": "block", "message": "rm -rf is not allowed"}\n' ;;
esac
exit 0
