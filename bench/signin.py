"""Sign-in timing: an unknown name against a wrong password, side by side in one run, with the
server's own password hashing (argon2id at the production setting).

    nice .venv/bin/python bench/signin.py [--rounds 40]

Both refusals are the same sentence; this measures that they also take the same time (an unknown name
is checked against a dummy hash), alternating the two kinds of attempt so the machine's load falls on
both alike. Prints the medians and their ratio, and a right password for reference; asserts nothing.
The sign-in limits are raised out of the way for the measurement.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from fivedice.web.app import create_app
    from fivedice.web.auth import AccountSettings

    settings = AccountSettings(signin_name_burst=1e9, signin_address_burst=1e9, signup_burst=1e9)
    app = create_app("sqlite://", pubsub="none", scores=False, accounts=settings)
    times: dict[str, list[float]] = {"unknown name": [], "wrong password": [], "right password": []}
    with TestClient(app) as client:
        assert client.post("/api/accounts", json={"name": "Ann", "password": "correct horse"}).status_code == 201
        attempts = {
            "unknown name": {"name": "Nobody", "password": "correct horse"},
            "wrong password": {"name": "Ann", "password": "wrong horse!!"},
            "right password": {"name": "Ann", "password": "correct horse"},
        }
        for _round in range(args.rounds):
            for kind, body in attempts.items():
                started = time.perf_counter()
                status = client.post("/api/login", json=body).status_code
                times[kind].append(time.perf_counter() - started)
                assert status == (200 if kind == "right password" else 401), (kind, status)
    medians = {kind: statistics.median(values) * 1000 for kind, values in times.items()}
    print(f"argon2id {settings.argon2_memory_kib} KiB x {settings.argon2_time} passes, {args.rounds} rounds")
    for kind, median in medians.items():
        print(f"{kind:15} median {median:7.1f} ms")
    ratio = medians["unknown name"] / medians["wrong password"]
    print(f"unknown name / wrong password: {ratio:.3f}")


if __name__ == "__main__":
    main()
