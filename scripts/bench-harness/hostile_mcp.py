#!/usr/bin/env python3
"""hostile_mcp.py: protocol-level abuse for `scripts/bench hostile` (the second phase).

Against a 2026-07-28 server at http://ADDR/mcp (examples/everything), for SECONDS:

  --streams N   N clients each holding a `subscriptions/listen` stream whose filter is the
                largest the server accepts (--uris URIs of `test://template/{i}/data`),
                reopened a second after the server closes or refuses it;
  --oversized K K clients each sending, over and over, a filter of 300,000 URIs (about
                3.2 MB: under the 4 MiB body limit), which the server must refuse whole;
  --tasks T     T clients each creating tasks (`slow_compute` for 600 s, with the Tasks
                extension declared) as fast as the server answers.

Prints one line of key=value pairs: streams_opened (in all), streams_peak (open at once),
streams_refused,
oversized_sent, oversized_refused, tasks_created, tasks_refused, errors, secs. Uses only the
standard library; every socket goes to ADDR (loopback in the benchmark).
"""

import argparse
import asyncio
import json
import time

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1"},
}
TASKS_META = dict(META)
TASKS_META["io.modelcontextprotocol/clientCapabilities"] = {
    "extensions": {"io.modelcontextprotocol/tasks": {}}
}

open_now = 0
counts = {
    "streams_opened": 0,
    "streams_peak": 0,
    "streams_refused": 0,
    "oversized_sent": 0,
    "oversized_refused": 0,
    "tasks_created": 0,
    "tasks_refused": 0,
    "tasks_inline_dropped": 0,
    "clients_cut_at_the_deadline": 0,
    "errors": 0,
}


def request(method, params, name=None, meta=META):
    params = dict(params)
    params["_meta"] = meta
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    headers = [
        "POST /mcp HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        "MCP-Protocol-Version: 2026-07-28",
        f"Mcp-Method: {method}",
        f"Content-Length: {len(body)}",
    ]
    if name:
        headers.append(f"Mcp-Name: {name}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = None
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    return status, length


async def listen_client(host, port, uris, deadline):
    filt = [f"test://template/{i}/data" for i in range(uris)]
    msg = request("subscriptions/listen", {"notifications": {"resourceSubscriptions": filt}})
    while time.monotonic() < deadline:
        writer = None
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(msg)
            await writer.drain()
            status, length = await read_head(reader)
            if length is not None:  # a plain JSON answer: refused
                await reader.readexactly(length)
                counts["streams_refused"] += 1
            else:
                global open_now
                open_now += 1
                counts["streams_opened"] += 1
                counts["streams_peak"] = max(counts["streams_peak"], open_now)
                try:
                    while time.monotonic() < deadline:
                        left = deadline - time.monotonic()
                        chunk = await asyncio.wait_for(reader.read(65536), timeout=max(left, 0.01))
                        if not chunk:
                            break
                except asyncio.TimeoutError:
                    pass
                finally:
                    open_now -= 1
        except (OSError, asyncio.IncompleteReadError, ValueError):
            counts["errors"] += 1
        finally:
            if writer:
                writer.close()
        await asyncio.sleep(1)


async def oversized_client(host, port, deadline):
    filt = [f"test://template/{i}/data" for i in range(300_000)]
    msg = request("subscriptions/listen", {"notifications": {"resourceSubscriptions": filt}})
    while time.monotonic() < deadline:
        writer = None
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(msg)
            await writer.drain()
            counts["oversized_sent"] += 1
            status, length = await read_head(reader)
            body = await reader.readexactly(length) if length is not None else b""
            if b'"error"' in body:
                counts["oversized_refused"] += 1
        except (OSError, asyncio.IncompleteReadError, ValueError):
            counts["errors"] += 1
        finally:
            if writer:
                writer.close()


async def task_client(host, port, deadline):
    msg = request(
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 600}},
        name="slow_compute",
        meta=TASKS_META,
    )
    reader = writer = None
    while time.monotonic() < deadline:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            writer.write(msg)
            await writer.drain()
            # A call the server runs inline instead (its caller's task quota is full) is
            # left after 5 s: the connection is dropped, which cancels it.
            status, length = await asyncio.wait_for(read_head(reader), 5)
            body = await reader.readexactly(length) if length is not None else b""
            if status == 200 and b'"taskId"' in body:
                counts["tasks_created"] += 1
            else:
                counts["tasks_refused"] += 1
                await asyncio.sleep(0.01)
        except asyncio.TimeoutError:
            counts["tasks_inline_dropped"] += 1
            if writer:
                writer.close()
            reader = writer = None
        except (OSError, asyncio.IncompleteReadError, ValueError):
            counts["errors"] += 1
            if writer:
                writer.close()
            reader = writer = None
            await asyncio.sleep(0.1)
    if writer:
        writer.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--addr", required=True)
    p.add_argument("--streams", type=int, default=0)
    p.add_argument("--uris", type=int, default=1024)
    p.add_argument("--oversized", type=int, default=0)
    p.add_argument("--tasks", type=int, default=0)
    p.add_argument("--seconds", type=float, default=30)
    a = p.parse_args()
    host, port = a.addr.rsplit(":", 1)
    start = time.monotonic()
    deadline = start + a.seconds
    jobs = [listen_client(host, port, a.uris, deadline) for _ in range(a.streams)]
    jobs += [oversized_client(host, port, deadline) for _ in range(a.oversized)]
    jobs += [task_client(host, port, deadline) for _ in range(a.tasks)]
    # Stop at the deadline whatever the sockets do.
    try:
        await asyncio.wait_for(asyncio.gather(*jobs, return_exceptions=True), timeout=a.seconds + 15)
    except asyncio.TimeoutError:
        counts["clients_cut_at_the_deadline"] += 1
    counts["secs"] = round(time.monotonic() - start, 1)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))


if __name__ == "__main__":
    asyncio.run(main())
