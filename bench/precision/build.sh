#!/usr/bin/env bash
# Builds bench/kernels.cu four ways into .bench-bin/precision/: plain, OOB
# (the default), precision, and OOB + precision; and records registers,
# spills and stack per kernel from ptxas -v for each (the cost of the fp64
# shadow is register pressure above all). Run from the repository root after
# building kosan.
exec bench/build_variants.sh "${1:-.bench-bin/precision}" oob precision oob,precision
