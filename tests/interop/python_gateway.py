#!/usr/bin/env python3
"""Interop: the official MCP Python SDK's client (mcp==2.3.0) calls every tool of two
servers nobody here wrote — the TypeScript reference server
(@modelcontextprotocol/server-everything, legacy era only) and the official time server
(mcp-server-time, modern only) — through examples/gateway, over Streamable HTTP, as a
2026-07-28 client and as a 2025-11-25 one. Elicitation, sampling and roots asked by the
upstreams are answered by this client's callbacks, whatever era each side speaks.

    python_gateway.py --gateway target/debug/gateway --node NODE \\
        --reference SERVER_EVERYTHING_JS --time MCP_SERVER_TIME

Every tool the gateway lists must be in CALLS below (a tool the upstreams add later fails
the run until it is called here too); NOT_SERVED names any it leaves out, and why. Prints one PASS/FAIL line per call and ends with
"python-gateway: N passed, M failed"; exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

import mcp_types as types
from mcp import Client

# Arguments for each tool, by its name behind the gateway (`ref_` the reference server,
# `time_` the time server). The gzip tool is given a data: URL (no network here).
CALLS: dict[str, dict[str, Any]] = {
    "ref_echo": {"message": "through the gateway"},
    "ref_get-annotated-message": {"messageType": "success", "includeImage": True},
    "ref_get-env": {},
    "ref_get-resource-links": {"count": 2},
    "ref_get-resource-reference": {"resourceType": "Text", "resourceId": 1},
    "ref_get-roots-list": {},
    "ref_get-structured-content": {"location": "Chicago"},
    "ref_get-sum": {"a": 2, "b": 3},
    "ref_get-tiny-image": {},
    "ref_gzip-file-as-resource": {
        "name": "hello.txt.gz",
        "data": "data:text/plain;base64,aGVsbG8gZ2F0ZXdheQ==",
        "outputType": "resource",
    },
    "ref_toggle-simulated-logging": {},
    "ref_toggle-subscriber-updates": {},
    "ref_trigger-elicitation-request": {},
    "ref_trigger-long-running-operation": {"duration": 1, "steps": 2},
    "ref_trigger-sampling-request": {"prompt": "Say hi", "maxTokens": 10},
    "ref_trigger-url-elicitation": {
        "url": "https://example.com/confirm",
        "elicitationId": "gateway-1",
    },
    # Runs only as a 2025-11-25 task of the upstream's: the gateway makes the call a task
    # and waits for its result; an ambiguous topic makes the task ask (elicitation, while
    # it is `input_required`), which reaches this client's callback.
    "ref_simulate-research-query": {"topic": "gateways", "ambiguous": True},
    "time_get_current_time": {"timezone": "UTC"},
    "time_convert_time": {
        "source_timezone": "UTC",
        "time": "12:00",
        "target_timezone": "Europe/Paris",
    },
}

# Tools of the upstreams the gateway does not serve, and why (checked: not listed).
NOT_SERVED: dict[str, str] = {}

# Text each result must contain (where a tool's answer is predictable).
EXPECT: dict[str, str] = {
    "ref_echo": "through the gateway",
    "ref_get-sum": "5",
    "ref_trigger-sampling-request": "sampled through the gateway",
    # The answer the elicitation callback gave, in the report.
    "ref_simulate-research-query": "Clarification**: test-interpretation",
    "time_get_current_time": "UTC",
    "time_convert_time": "Europe/Paris",
}


async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    schema = getattr(params, "requested_schema", None)
    if schema is None:  # URL mode
        return types.ElicitResult(action="accept")
    if hasattr(schema, "model_dump"):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    content: dict[str, Any] = {}
    for key, prop in (schema.get("properties") or {}).items():
        if "enum" in prop:
            content[key] = prop["enum"][0]
        elif prop.get("type") == "integer":
            content[key] = 7
        elif prop.get("type") == "number":
            content[key] = 1.5
        elif prop.get("type") == "boolean":
            content[key] = True
        elif prop.get("type") == "array":
            content[key] = []
        else:
            content[key] = f"test-{key}"
    return types.ElicitResult(action="accept", content=content)


async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="sampled through the gateway"),
        model="test-model",
        stop_reason="endTurn",
    )


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def text_of(result: Any) -> str:
    parts = []
    for block in result.content or []:
        parts.append(getattr(block, "text", None) or repr(block))
    if result.structured_content is not None:
        parts.append(repr(result.structured_content))
    return " ".join(parts)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def run_era(url: str, era: str, counts: list[int]) -> None:
    print(f"\n== http/{era} ==", flush=True)
    client = Client(
        url,
        mode="auto" if era == "modern" else "legacy",
        elicitation_callback=elicit,
        sampling_callback=sample,
        list_roots_callback=roots,
        client_info=types.Implementation(name="mcp-framework-gateway-interop", version="0.1.0"),
        read_timeout_seconds=60,
    )
    async with client:
        listed = await client.list_tools()
        names = sorted(t.name for t in listed.tools)
        unknown = [n for n in names if n not in CALLS]
        missing = [n for n in CALLS if n not in names]
        for n in unknown:
            counts[1] += 1
            print(f"  FAIL {n}: listed, but this test does not call it (add it to CALLS)")
        for n in missing:
            counts[1] += 1
            print(f"  FAIL {n}: not listed by the gateway")
        for n, why in NOT_SERVED.items():
            if n in names:
                counts[1] += 1
                print(f"  FAIL {n}: listed, though it cannot be called ({why})")
            else:
                counts[0] += 1
                print(f"  PASS {n}: not served ({why})")
        for name in [n for n in names if n in CALLS]:
            try:
                result = await asyncio.wait_for(client.call_tool(name, CALLS[name]), 60)
            except Exception as e:  # noqa: BLE001 - every failure is a result
                counts[1] += 1
                print(f"  FAIL {name}: {type(e).__name__}: {e}")
                continue
            text = text_of(result)
            want = EXPECT.get(name)
            if result.is_error:
                counts[1] += 1
                print(f"  FAIL {name}: isError: {text[:200]}")
            elif want is not None and want not in text:
                counts[1] += 1
                print(f"  FAIL {name}: expected {want!r} in {text[:200]}")
            else:
                counts[0] += 1
                print(f"  PASS {name}: {text[:100]!r}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gateway", required=True)
    p.add_argument("--node", required=True)
    p.add_argument("--reference", required=True, help="server-everything's dist/index.js")
    p.add_argument("--time", required=True, help="the mcp-server-time program")
    a = p.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    gateway = subprocess.Popen(
        [
            a.gateway, "http", "--bind", f"127.0.0.1:{port}",
            "--upstream", f"ref=stdio:{a.node} {a.reference} stdio",
            "--upstream", f"time=stdio:{a.time}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "RUST_LOG": "warn"},
    )
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url, timeout=1)
            except urllib.error.HTTPError:
                break  # it answers (a GET without a session is refused)
            except OSError:
                time.sleep(0.1)
                continue
            break
        counts = [0, 0]
        for era in ("modern", "legacy"):
            asyncio.run(run_era(url, era, counts))
    finally:
        os.killpg(gateway.pid, signal.SIGTERM)
        gateway.wait(timeout=10)
    print(f"python-gateway: {counts[0]} passed, {counts[1]} failed")
    return 1 if counts[1] else 0


if __name__ == "__main__":
    sys.exit(main())
