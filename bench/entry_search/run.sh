#!/bin/sh
# Times the host's decision of an entry test (kosan_entry_search_bench) and
# prints its table; run from the repository root after building kosan.
set -eu
exec build/bin/kosan_entry_search_bench "${1:-20000}"
