#!/usr/bin/env python3
"""What authorization costs a call, in instructions (callgrind), in one run beside no auth.

    .venv/bin/python benches/auth_cost.py --http target/release/tasks [--n 2000] [--json out.json]

The server is the default build of `examples/tasks.rs` run as `tasks --http 127.0.0.1:0`, with
and without `--auth-issuer`; the requests are `benches/callgrind.py`'s `valid` workload (stateless
2026-07-28 calls of `add_task` and `complete_task`, one at a time on one keep-alive connection),
each with `Authorization: Bearer <token>` when auth is on. The issuer is this script's own, on
loopback (RFC 8414 metadata and a JWKS with one RSA 2048 and one P-256 key); the token is a JWT
access token (`typ: at+jwt`) for the endpoint's URI with scope `tasks:write`, signed RS256 or
ES256, the same token on every call, as a client holds one until it expires. Rows:

- no auth;
- RS256 and ES256, with the verified-token cache (the default: a token presented again is looked
  up by a keyed SipHash-2-4 of the resource and the token, not verified again);
- RS256 and ES256 with `--auth-token-cache 0`: the signature and every claim verified on every
  call.

Each figure is (Ir of a server that answered 200 warm-up calls and N calls - Ir of one that
answered the 200 warm-up calls alone) / N, as in callgrind.py: startup, discovery, the JWKS fetch
and the first verification cancel out. `--cpu` measures the server's CPU time per call instead
(user + system from /proc, after 2,000 warm-up calls, `--cpu-calls` calls, median of `--repeat`
servers per row, the rows alternating), the kernel's work for each request included. Needs
PyJWT with `cryptography` (the project's .venv has both: the MCP Python SDK depends on them) and
valgrind.
"""

import argparse
import http.server
import json
import os
import sys
import tempfile
import threading
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import http_calls, total_ir, valgrind  # noqa: E402

RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())


def jwk(algorithm, key, kid, alg):
    entry = json.loads(algorithm.to_jwk(key.public_key()))
    entry.update(kid=kid, alg=alg, use="sig")
    return entry


JWKS = {"keys": [jwk(RSAAlgorithm, RSA_KEY, "rsa-1", "RS256"),
                 jwk(ECAlgorithm, EC_KEY, "ec-1", "ES256")]}


def start_issuer():
    """A loopback authorization server's metadata and keys: its issuer URL."""
    state = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            issuer = state["issuer"]
            if self.path == "/.well-known/oauth-authorization-server":
                body = {"issuer": issuer, "jwks_uri": issuer + "/jwks",
                        "token_endpoint": issuer + "/token"}
            elif self.path == "/jwks":
                body = JWKS
            else:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["issuer"] = "http://127.0.0.1:%d" % server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state["issuer"]


def token(issuer, resource, alg):
    now = int(time.time())
    claims = {"iss": issuer, "aud": resource, "sub": "bench", "client_id": "bench",
              "iat": now, "exp": now + 3600, "scope": "tasks:write"}
    key, kid = (RSA_KEY, "rsa-1") if alg == "RS256" else (EC_KEY, "ec-1")
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid, "typ": "at+jwt"})


def serve_and_call(binary, warm_up, n, issuer=None, alg=None, cache=True, wrapper=()):
    """Starts the server (under `wrapper`, e.g. valgrind), makes warm_up + n calls of the `valid`
    workload, each answer checked, stops it with SIGTERM: the server's CPU seconds over the n."""
    command = list(wrapper) + [binary, "--http", "127.0.0.1:0"]
    headers = None
    if issuer:
        command += ["--auth-issuer", issuer]
        if not cache:
            command += ["--auth-token-cache", "0"]
        headers = lambda addr: {  # noqa: E731
            "Authorization": "Bearer " + token(issuer, "http://%s/mcp" % addr, alg)}
    return http_calls(command, "valid", warm_up, n, headers=headers)


def http_cpu(binary, n, issuer=None, alg=None, cache=True):
    """The server's CPU seconds per call over n calls, after 2,000 warm-up calls."""
    return serve_and_call(binary, 2000, n, issuer, alg, cache) / n


def http_ir(binary, n, tmp, issuer=None, alg=None, cache=True):
    """The instructions of a server that answered 200 warm-up calls and n calls."""
    label = "none" if issuer is None else "%s-%s" % (alg, "cache" if cache else "nocache")
    out_file = os.path.join(tmp, "auth-%s-%d.out" % (label, n))
    serve_and_call(binary, 200, n, issuer, alg, cache, wrapper=valgrind(out_file))
    return total_ir(out_file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--http", required=True, help="the default build of examples/tasks.rs")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--keep", help="write callgrind's files to this directory and keep them "
                        "(for callgrind_annotate)")
    parser.add_argument("--rows", help="only the rows whose label contains this text")
    parser.add_argument("--cpu", action="store_true", help="CPU time per call instead of "
                        "instructions (no valgrind)")
    parser.add_argument("--cpu-calls", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    issuer = start_issuer()
    rows = [("no auth", None, None, True),
            ("RS256, verified-token cache", issuer, "RS256", True),
            ("ES256, verified-token cache", issuer, "ES256", True),
            ("RS256, every call verified", issuer, "RS256", False),
            ("ES256, every call verified", issuer, "ES256", False)]
    rows = [r for r in rows if r[0] == "no auth" or not args.rows or args.rows in r[0]]
    results = {}
    if args.cpu:
        # The rows alternate within each repeat, so that a drift of the machine's load over
        # the run reaches every row alike.
        runs = {label: [] for label, _, _, _ in rows}
        for _ in range(args.repeat):
            for label, iss, alg, cache in rows:
                runs[label].append(http_cpu(args.http, args.cpu_calls, iss, alg, cache))
        for label, times in runs.items():
            results[label] = sorted(times)[len(times) // 2] * 1e6
        none = results["no auth"]
        print("Server CPU time per stateless valid call (µs, median of %d servers, %d calls each "
              "after 2,000 warm-up calls, one keep-alive connection)\n" % (args.repeat,
                                                                          args.cpu_calls))
        print("| configuration | CPU µs per call | vs no auth |")
        print("| --- | ---: | ---: |")
        for label, _, _, _ in rows:
            print("| %s | %.1f | %+.1f %% |" % (label, results[label],
                                               100 * (results[label] / none - 1)))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
        return
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        for label, iss, alg, cache in rows:
            full = http_ir(args.http, args.n, tmp, iss, alg, cache)
            base = http_ir(args.http, 0, tmp, iss, alg, cache)
            results[label] = (full - base) / args.n
    none = results["no auth"]
    print("Instructions per stateless valid call (callgrind, N = %d, one keep-alive connection)\n"
          % args.n)
    print("| configuration | instructions per call | vs no auth |")
    print("| --- | ---: | ---: |")
    for label, _, _, _ in rows:
        print("| %s | %s | %+.1f %% |" % (label, format(round(results[label]), ","),
                                          100 * (results[label] / none - 1)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
