"""What the interop scripts share: checks recorded per client mode, then one line per check
("ok MODE NAME" or "FAIL MODE NAME: why") and "summary: N passed, M failed".
"""

results: list[tuple[str, str, str | None]] = []


def check(mode: str, name: str, condition: bool, detail: object = "") -> None:
    """Records check `name` of `mode`: passed when `condition` holds, else failed with `detail`."""
    results.append((mode, name, None if condition else f"{detail!r}"))


def fail(mode: str, name: str, why: str) -> None:
    """Records check `name` of `mode` as failed, for `why` (a traceback, say)."""
    results.append((mode, name, why))


def report() -> int:
    """Prints every check and the summary; the exit status: 1 when any check failed."""
    failed = 0
    for mode, name, why in results:
        if why is None:
            print(f"ok {mode} {name}")
        else:
            failed += 1
            print(f"FAIL {mode} {name}: {why}")
    print(f"summary: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
