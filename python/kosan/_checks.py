"""kosan's checks, as the host library lists them: KOSAN_CHECKS of
include/kosan/abi.h, the one table the compiler, the runtime and the drivers
take their checks from."""

from __future__ import annotations

import json

from ._library import KosanError, load, take_string


def checks() -> list[dict]:
    """Every name --kosan-checks= takes, in the table's order: dicts with
    "name", "bits", "runtime" (False for a build variant such as order-ops,
    which KOSAN_OPTIONS=checks= does not take) and "all" (whether "all"
    includes it)."""
    text = take_string(load().kosan_checks_json())
    if text is None:
        raise KosanError("the kosan host library could not list its checks")
    return json.loads(text)


def check_names() -> list[str]:
    """The checks' names (no variants), in the table's order: what both
    --kosan-checks= and KOSAN_OPTIONS=checks= take."""
    return [c["name"] for c in checks() if c["runtime"]]
