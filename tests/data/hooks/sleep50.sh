#!/usr/bin/env bash
cat > /dev/null
sleep 0.05
