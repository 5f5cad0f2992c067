#!/bin/sh
# Stands in for kosan-clang++ (KOSAN_CLANGXX): prints its arguments on one line.
for a in "$@"; do printf "[%s] " "$a"; done
echo
