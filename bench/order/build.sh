#!/usr/bin/env bash
# Builds bench/kernels.cu three ways into .bench-bin/order/: plain, order
# (checks=order alone) and OOB + order, and records registers, spills and
# stack per kernel from ptxas -v. Run from the repository root after
# building kosan.
exec bench/build_variants.sh "${1:-.bench-bin/order}" order oob,order
