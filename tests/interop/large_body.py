#!/usr/bin/env python3
"""Interop: a body over the server's size limit, posted with httpx2's AsyncClient (the HTTP
client of the official MCP Python SDK, mcp==2.3.0), which writes the whole body before it
reads the answer. Prints the status and the JSON body it read as one JSON object on stdout;
exits 1 with the exception on stderr when it reads none (a reset connection: `ReadError`).

    large_body.py --url http://127.0.0.1:PORT/mcp --bytes 4300000

Run it in the virtualenv of scripts/interop-setup ($INTEROP_PYTHON).
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
import httpx2


async def main(url: str, size: int) -> int:
    head = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"'
    tail = b'"}}'
    body = head + b"x" * max(0, size - len(head) - len(tail)) + tail
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        try:
            response = await http.post(url, content=body, headers=headers)
        except Exception as e:  # noqa: BLE001 - what the SDK would see
            print(f"{type(e).__name__}: {e!r}", file=sys.stderr)
            return 1
        print(json.dumps({"status": response.status_code, "body": response.json()}))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--bytes", type=int, required=True)
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.url, args.bytes))
