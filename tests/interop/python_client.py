#!/usr/bin/env python3
"""Interop: the official MCP Python SDK's client (mcp==2.3.0) against an MCP server.

Runs the same checks over stdio and Streamable HTTP, in the modern era (2026-07-28: the
client's default mode="auto" probes server/discover and adopts it) and in the legacy era
(mode="legacy": initialize, 2025-11-25). Prints one PASS/FAIL line per check and ends
with "python-interop: N passed, M failed"; exits 1 if anything failed.

The defaults are the `everything` example's surface; every name can be changed:

    python_client.py --server target/debug/everything
    python_client.py --stdio-command "target/debug/srv stdio" \\
        --http-command "target/debug/srv http --bind 127.0.0.1:{port}" --tool-echo ""

An empty name skips the checks that need it. Run it with scripts/python-interop, which
provides the virtualenv (scripts/interop-setup).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ELICITED_NAME = "Ada"

# --------------------------------------------------------------------------------------
# Configuration


@dataclass
class Names:
    add: str
    echo: str
    header: str
    elicit: str
    progress: str
    toggle: str
    dynamic_tool: str
    resource: str
    template: str
    template_uri: str
    template_expect: str
    prompt: str
    prompt_args: dict[str, str]
    complete_arg: str
    complete_value: str


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    s = p.add_argument_group("server")
    s.add_argument(
        "--server",
        default="target/debug/everything",
        help="the server binary (shell words); stdio runs `SERVER stdio`, HTTP runs "
        "`SERVER http --bind 127.0.0.1:{port}` (default: %(default)s)",
    )
    s.add_argument("--stdio-command", help="the whole stdio command line (overrides --server)")
    s.add_argument(
        "--http-command",
        help="the whole HTTP command line, with {port} (overrides --server)",
    )
    s.add_argument("--path", default="/mcp", help="the HTTP endpoint path (default: %(default)s)")
    s.add_argument("--transports", default="stdio,http", help="default: %(default)s")
    s.add_argument("--eras", default="modern,legacy", help="default: %(default)s")
    s.add_argument(
        "--log-dir",
        default=None,
        help="where server logs go (default: target/interop/results/python-<time>)",
    )
    s.add_argument("--startup-timeout", type=float, default=120.0)
    s.add_argument("--check-timeout", type=float, default=30.0, help="seconds per check")
    s.add_argument("-v", "--verbose", action="store_true", help="print tracebacks")

    n = p.add_argument_group("names (an empty value skips the checks that use it)")
    n.add_argument("--tool-add", default="add", help="{a, b} -> structuredContent {sum}")
    n.add_argument("--tool-echo", default="echo", help="{text} -> the same text")
    n.add_argument(
        "--tool-header",
        default="regional_echo",
        help="{region (x-mcp-header Region), text} -> 'region:text'",
    )
    n.add_argument(
        "--tool-elicit", default="ask_name", help="elicits (form); the result names the answer"
    )
    n.add_argument(
        "--tool-progress", default="count_slowly", help="{n, delay_ms}: n progress notifications"
    )
    n.add_argument(
        "--tool-toggle", default="toggle_extra_tool", help="adds/removes the dynamic tool"
    )
    n.add_argument("--dynamic-tool", default="extra_tool", help="the tool the toggle adds")
    n.add_argument("--resource", default="test://static-text", help="a fixed text resource")
    n.add_argument("--template", default="test://template/{id}/data", help="a URI template")
    n.add_argument("--template-uri", default="test://template/42/data", help="an instance of it")
    n.add_argument(
        "--template-expect", default="42", help="text the instance's contents must contain"
    )
    n.add_argument("--prompt", default="test_prompt_with_arguments")
    n.add_argument(
        "--prompt-args",
        default='{"arg1": "alpha", "arg2": "beta"}',
        help="JSON object of string arguments; every value must appear in the messages",
    )
    n.add_argument("--complete-arg", default="arg1", help="the prompt argument to complete")
    n.add_argument("--complete-value", default="a", help="the partial value")
    return p.parse_args(argv)


def names_of(a: argparse.Namespace) -> Names:
    prompt_args = json.loads(a.prompt_args)
    if not isinstance(prompt_args, dict) or not all(isinstance(v, str) for v in prompt_args.values()):
        raise SystemExit("--prompt-args must be a JSON object of strings")
    return Names(
        add=a.tool_add,
        echo=a.tool_echo,
        header=a.tool_header,
        elicit=a.tool_elicit,
        progress=a.tool_progress,
        toggle=a.tool_toggle,
        dynamic_tool=a.dynamic_tool,
        resource=a.resource,
        template=a.template,
        template_uri=a.template_uri,
        template_expect=a.template_expect,
        prompt=a.prompt,
        prompt_args=prompt_args,
        complete_arg=a.complete_arg,
        complete_value=a.complete_value,
    )


# --------------------------------------------------------------------------------------
# Results


class CheckFailed(Exception):
    pass


class Skip(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


@dataclass
class Report:
    verbose: bool
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)

    def line(self, status: str, where: str, name: str, detail: str) -> None:
        print(f"  {status:4} {name}" + (f": {detail}" if detail else ""), flush=True)
        if status == "FAIL":
            self.failures.append(f"{where} {name}: {detail}")


# SDK warnings (e.g. "dropping tool 'x': invalid x-mcp-header") are part of the evidence.
class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()}")


# --------------------------------------------------------------------------------------
# Servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=2).close()
    except urllib.error.HTTPError:
        return True  # any HTTP status (405 for a GET without a session) means it is up
    except OSError:
        return False
    return True


class HttpServer:
    """A server process in its own process group; stopped by that group's id."""

    def __init__(self, command: str, path: str, log: Path, startup_timeout: float) -> None:
        self.command, self.path, self.log_path = command, path, log
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        for _ in range(3):
            port = free_port()
            argv = [w.replace("{port}", str(port)) for w in shlex.split(self.command)]
            self.url = f"http://127.0.0.1:{port}{self.path}"
            log = open(self.log_path, "ab")
            print(f"  (starting {' '.join(argv)})", flush=True)
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
            )
            log.close()
            deadline = time.monotonic() + self.startup_timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                if answers(self.url):
                    return
                time.sleep(0.2)
            if self.proc.poll() is None:
                self.stop()
                raise RuntimeError(f"the server did not answer at {self.url}; see {self.log_path}")
        raise RuntimeError(f"the server exited before answering; see {self.log_path}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        except ProcessLookupError:
            pass


# --------------------------------------------------------------------------------------
# Client callbacks


@dataclass
class Callbacks:
    elicitations: list[types.ElicitRequestParams] = field(default_factory=list)
    notifications: list[Any] = field(default_factory=list)

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params)
        schema = getattr(params, "requested_schema", None)
        if schema is None:  # URL mode: nothing to fill in
            return types.ElicitResult(action="accept")
        if hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        content: dict[str, Any] = {}
        for key, prop in (schema.get("properties") or {}).items():
            kind = prop.get("type")
            if "enum" in prop:
                content[key] = prop["enum"][0]
            elif kind == "integer":
                content[key] = 7
            elif kind == "number":
                content[key] = 1.5
            elif kind == "boolean":
                content[key] = True
            elif kind == "array":
                content[key] = []
            else:
                content[key] = ELICITED_NAME if key == "name" else f"test-{key}"
        return types.ElicitResult(action="accept", content=content)

    async def message(self, message: Any) -> None:
        self.notifications.append(message)


def text_of(result: Any) -> str:
    parts = []
    for block in getattr(result, "content", None) or []:
        if getattr(block, "type", None) == "text":
            parts.append(block.text)
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# Checks


@dataclass
class Run:
    client: Client
    era: str
    transport: str
    names: Names
    callbacks: Callbacks
    captured: Captured
    tools: dict[str, types.Tool] = field(default_factory=dict)


async def check_connect(r: Run) -> str:
    want = MODERN if r.era == "modern" else LEGACY
    got = r.client.protocol_version
    expect(got == want, f"negotiated {got!r}, expected {want!r}")
    info = r.client.server_info
    expect(info is not None, "the server did not identify itself (serverInfo)")
    assert info is not None
    return f"protocol {got}, server {info.name} {info.version}"


async def check_list_tools(r: Run) -> str:
    listing = await r.client.list_tools(cache_mode="refresh")
    r.tools = {t.name: t for t in listing.tools}
    wanted = [
        n
        for n in (r.names.add, r.names.echo, r.names.header, r.names.elicit, r.names.progress, r.names.toggle)
        if n
    ]
    missing = [n for n in wanted if n not in r.tools]
    dropped = [m for m in r.captured.records if "dropping tool" in m]
    expect(not missing, f"missing {missing} (listed: {sorted(r.tools)}; SDK warnings: {dropped})")
    for t in listing.tools:
        expect(bool(t.input_schema), f"tool {t.name} has no inputSchema")
    return f"{len(r.tools)} tools"


async def check_add(r: Run) -> str:
    name = need(r.names.add)
    result = await r.client.call_tool(name, {"a": 2, "b": 3})
    expect(not result.is_error, f"isError: {text_of(result)!r}")
    expect(result.structured_content == {"sum": 5}, f"structuredContent {result.structured_content!r}")
    tool = r.tools.get(name)
    expect(tool is None or tool.output_schema is not None, "the tool lists no outputSchema")
    return f"structuredContent {result.structured_content}"


async def check_echo(r: Run) -> str:
    name = need(r.names.echo)
    text = "héllo wörld ✓ \"quotes\" \\ 🦀"
    result = await r.client.call_tool(name, {"text": text})
    expect(not result.is_error, f"isError: {text_of(result)!r}")
    expect(text_of(result) == text, f"echoed {text_of(result)!r}")
    return ""


async def check_header(r: Run) -> str:
    # Over modern HTTP the SDK mirrors `region` into Mcp-Param-Region (base64 sentinel for
    # the non-ASCII value) and the server compares it with the body.
    name = need(r.names.header)
    got = []
    for region in ("eu-west-1", "Zürich"):
        result = await r.client.call_tool(name, {"region": region, "text": "hi"})
        expect(not result.is_error, f"isError: {text_of(result)!r}")
        expect(text_of(result) == f"{region}:hi", f"{region!r} gave {text_of(result)!r}")
        got.append(text_of(result))
    return f"{got}"


async def check_prompt(r: Run) -> str:
    name = need(r.names.prompt)
    listing = await r.client.list_prompts(cache_mode="refresh")
    expect(name in [p.name for p in listing.prompts], f"{name} not in {[p.name for p in listing.prompts]}")
    result = await r.client.get_prompt(name, r.names.prompt_args)
    expect(bool(result.messages), "no messages")
    dumped = json.dumps([m.model_dump(mode="json") for m in result.messages], ensure_ascii=False)
    for value in r.names.prompt_args.values():
        expect(value in dumped, f"argument value {value!r} not in the messages: {dumped[:300]}")
    return f"{len(result.messages)} message(s)"


async def check_resource(r: Run) -> str:
    uri = need(r.names.resource)
    listing = await r.client.list_resources(cache_mode="refresh")
    uris = [str(x.uri) for x in listing.resources]
    expect(uri in uris, f"{uri} not in {uris}")
    result = await r.client.read_resource(uri, cache_mode="refresh")
    expect(bool(result.contents), "no contents")
    first = result.contents[0]
    expect(str(first.uri) == uri, f"contents[0].uri is {first.uri}")
    expect(bool(getattr(first, "text", None) or getattr(first, "blob", None)), "empty contents")
    return f"{getattr(first, 'mime_type', None)}: {str(getattr(first, 'text', ''))[:60]!r}"


async def check_template(r: Run) -> str:
    template = need(r.names.template)
    listing = await r.client.list_resource_templates(cache_mode="refresh")
    templates = [t.uri_template for t in listing.resource_templates]
    expect(template in templates, f"{template} not in {templates}")
    uri = need(r.names.template_uri)
    result = await r.client.read_resource(uri, cache_mode="refresh")
    expect(bool(result.contents), "no contents")
    text = str(getattr(result.contents[0], "text", "") or "")
    expect(r.names.template_expect in text, f"{r.names.template_expect!r} not in {text!r}")
    return f"{uri}: {text[:60]!r}"


async def check_completion(r: Run) -> str:
    name, arg = need(r.names.prompt), need(r.names.complete_arg)
    result = await r.client.complete(
        types.PromptReference(name=name), {"name": arg, "value": r.names.complete_value}
    )
    expect(isinstance(result.completion.values, list), "completion.values is not a list")
    return f"values {result.completion.values[:5]}"


async def check_elicitation(r: Run) -> str:
    name = need(r.names.elicit)
    before = len(r.callbacks.elicitations)
    detail = ""
    if r.era == "modern":
        # The first leg by hand: it must be an InputRequiredResult (MRTR), not a server request.
        first = await r.client.session.call_tool(name, {}, allow_input_required=True)
        expect(
            isinstance(first, types.InputRequiredResult),
            f"expected resultType input_required, got {type(first).__name__}: {first!r}"[:400],
        )
        assert isinstance(first, types.InputRequiredResult)
        requests = first.input_requests or {}
        methods = sorted({req.method for req in requests.values()})
        expect(methods == ["elicitation/create"], f"inputRequests methods {methods}")
        expect(bool(first.request_state), "no requestState")
        expect(len(r.callbacks.elicitations) == before, "the server sent a request on a modern path")
        detail = f"input_required {sorted(requests)}; "
    # The SDK's own loop: MRTR retries (modern) or answering elicitation/create (legacy).
    result = await r.client.call_tool(name, {})
    asked = len(r.callbacks.elicitations) - before
    expect(asked >= 1, "the elicitation callback was never called")
    expect(not result.is_error, f"isError: {text_of(result)!r}")
    expect(ELICITED_NAME in text_of(result), f"{ELICITED_NAME!r} not in {text_of(result)!r}")
    return detail + f"{asked} elicitation(s), result {text_of(result)!r}"


async def check_progress(r: Run) -> str:
    name = need(r.names.progress)
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    n = 3
    result = await r.client.call_tool(name, {"n": n, "delay_ms": 20}, progress_callback=on_progress)
    expect(not result.is_error, f"isError: {text_of(result)!r}")
    expect(len(seen) == n, f"{len(seen)} progress notifications, expected {n}: {seen}")
    values = [p for p, _ in seen]
    expect(values == sorted(values), f"progress not increasing: {values}")
    expect(all(t == n for _, t in seen), f"totals {[t for _, t in seen]}, expected {n}")
    return f"{seen}, result {text_of(result)!r}"


async def tool_listed(r: Run, name: str) -> bool:
    listing = await r.client.list_tools(cache_mode="refresh")
    return name in [t.name for t in listing.tools]


async def check_listen(r: Run) -> str:
    toggle, dynamic = need(r.names.toggle), r.names.dynamic_tool
    if r.era != "modern":
        # subscriptions/listen is 2026-07-28 only; legacy sessions may get list_changed.
        before = len(r.callbacks.notifications)
        await r.client.call_tool(toggle, {})
        await r.client.call_tool(toggle, {})
        await anyio.sleep(0.5)
        got = [
            n for n in r.callbacks.notifications[before:]
            if isinstance(n, types.ToolListChangedNotification)
        ]
        raise Skip(f"legacy session: {len(got)} notifications/tools/list_changed (optional)")
    initially = await tool_listed(r, dynamic) if dynamic else None
    async with r.client.listen(tools_list_changed=True) as sub:
        expect(bool(sub.honored.tools_list_changed), f"acknowledged filter {sub.honored}")
        events = []
        for round_ in (1, 2):
            await r.client.call_tool(toggle, {})
            with anyio.fail_after(5):
                event = await sub.__anext__()
            expect(isinstance(event, ToolsListChanged), f"event {event!r}")
            events.append(type(event).__name__)
            if dynamic:
                now = await tool_listed(r, dynamic)
                want = (not initially) if round_ == 1 else initially
                expect(now == want, f"after toggle {round_}, {dynamic} listed: {now}")
    return f"subscription {sub.subscription_id!r}: {events}"


def need(name: str) -> str:
    if not name:
        raise Skip("not configured")
    return name


CHECKS: list[tuple[str, Callable[[Run], Awaitable[str]]]] = [
    ("tools/list", check_list_tools),
    ("tools/call add (structured output)", check_add),
    ("tools/call echo", check_echo),
    ("tools/call with x-mcp-header", check_header),
    ("prompts/get", check_prompt),
    ("resources/read", check_resource),
    ("resources/read template", check_template),
    ("completion/complete", check_completion),
    ("elicitation", check_elicitation),
    ("progress", check_progress),
    ("subscriptions/listen tools list_changed", check_listen),
]


# --------------------------------------------------------------------------------------
# Driver


async def run_combo(
    report: Report,
    transport: str,
    era: str,
    target: Callable[[Path], Any],
    names: Names,
    log_dir: Path,
    check_timeout: float,
) -> None:
    where = f"{transport}/{era}"
    print(f"\n== {where} ==", flush=True)
    callbacks = Callbacks()
    captured = Captured()
    logging.getLogger().addHandler(captured)
    try:
        async with AsyncExitStack() as stack:
            client = Client(
                target(log_dir / f"{transport}-{era}.server.log"),
                mode="auto" if era == "modern" else "legacy",
                elicitation_callback=callbacks.elicit,
                message_handler=callbacks.message,
                client_info=types.Implementation(name="mcp-framework-interop", version="0.1.0"),
                read_timeout_seconds=check_timeout,
            )
            try:
                # No fail_after here: the client's task groups outlive this statement (a
                # cancel scope must not close around them). read_timeout_seconds bounds it.
                await stack.enter_async_context(client)
                run = Run(client, era, transport, names, callbacks, captured)
                detail = await check_connect(run)
            except Exception as e:  # noqa: BLE001 - every failure is a result
                report.failed += 1
                report.line("FAIL", where, "connect", describe(e))
                if report.verbose:
                    traceback.print_exc()
                return
            report.passed += 1
            report.line("PASS", where, "connect", detail)
            for name, check in CHECKS:
                try:
                    with anyio.fail_after(check_timeout):
                        detail = await check(run)
                except Skip as s:
                    report.skipped += 1
                    report.line("SKIP", where, name, str(s))
                except Exception as e:  # noqa: BLE001
                    report.failed += 1
                    report.line("FAIL", where, name, describe(e))
                    if report.verbose:
                        traceback.print_exc()
                else:
                    report.passed += 1
                    report.line("PASS", where, name, detail)
    except Exception as e:  # noqa: BLE001 - closing the client failed
        report.failed += 1
        report.line("FAIL", where, "disconnect", describe(e))
    finally:
        logging.getLogger().removeHandler(captured)
        for record in dict.fromkeys(captured.records):
            print(f"  note: SDK warning: {record}", flush=True)


def describe(e: BaseException) -> str:
    if isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        return describe(e.exceptions[0])
    if isinstance(e, MCPError):
        data = f" data={e.error.data!r}" if e.error.data is not None else ""
        return f"MCPError {e.error.code}: {e.error.message}{data}"
    if isinstance(e, TimeoutError):
        return "timed out"
    return f"{type(e).__name__}: {e}"[:600]


async def main(argv: list[str]) -> int:
    a = parse_args(argv)
    names = names_of(a)
    base = shlex.split(a.server)
    stdio_argv = shlex.split(a.stdio_command) if a.stdio_command else [*base, "stdio"]
    http_command = a.http_command or shlex.join([*base, "http", "--bind", "127.0.0.1:{port}"])
    transports = [t for t in a.transports.split(",") if t]
    eras = [e for e in a.eras.split(",") if e]
    if set(transports) - {"stdio", "http"} or set(eras) - {"modern", "legacy"}:
        raise SystemExit("--transports takes stdio,http and --eras modern,legacy")
    log_dir = Path(a.log_dir or f"target/interop/results/python-{time.strftime('%Y%m%d-%H%M%S')}")
    log_dir.mkdir(parents=True, exist_ok=True)
    # WARNING records reach the Captured handlers (they are reported as notes); only
    # errors are printed as they happen.
    console = logging.StreamHandler()
    console.setLevel(logging.ERROR)
    console.setFormatter(logging.Formatter("  log: %(name)s: %(message)s"))
    logging.getLogger().addHandler(console)
    logging.getLogger().setLevel(logging.WARNING)

    report = Report(verbose=a.verbose)
    print(f"MCP Python SDK client interop; server logs in {log_dir}")

    if "stdio" in transports:
        env = {k: v for k, v in os.environ.items() if k.startswith("RUST_")}

        def stdio_target(log: Path) -> Any:
            errlog = open(log, "a")  # closed with the process
            params = StdioServerParameters(command=stdio_argv[0], args=stdio_argv[1:], env=env)
            return stdio_client(params, errlog=errlog)

        for era in eras:
            await run_combo(report, "stdio", era, stdio_target, names, log_dir, a.check_timeout)

    if "http" in transports:
        server = HttpServer(http_command, a.path, log_dir / "http.server.log", a.startup_timeout)
        try:
            server.start()
        except Exception as e:  # noqa: BLE001
            report.failed += 1
            report.line("FAIL", "http", "server start", describe(e))
        else:
            try:
                for era in eras:
                    await run_combo(
                        report, "http", era, lambda _log: streamable_http_client(server.url),
                        names, log_dir, a.check_timeout,
                    )
            finally:
                server.stop()

    if report.failures:
        print("\nFailures:")
        for f in report.failures:
            print(f"  {f}")
    skipped = f" ({report.skipped} skipped)" if report.skipped else ""
    print(f"\nServer logs: {log_dir}{skipped}")
    print(f"python-interop: {report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1:]))
