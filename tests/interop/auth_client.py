#!/usr/bin/env python3
"""Interop: the official MCP Python SDK (mcp==2.3.0) as an OAuth client-credentials client.

Connects over Streamable HTTP to an MCP server that requires a bearer token, letting the
SDK's `ClientCredentialsOAuthProvider` (mcp/client/auth/extensions/client_credentials.py)
do the whole flow: the 401 with `WWW-Authenticate: Bearer resource_metadata=...`, protected
resource metadata (RFC 9728), authorization server metadata (RFC 8414), the token request
(grant_type=client_credentials, resource=<the PRM resource> per RFC 8707), then the retried
request with the token. Calls one tool (default `whoami`) and prints its result as JSON on
stdout; exits 1 with the reason on stderr when anything fails.

    auth_client.py --url http://127.0.0.1:PORT/mcp --client-id svc --client-secret svc-secret \\
        --issuer http://127.0.0.1:ISSUER_PORT [--scope "notes:read"] [--tool whoami]

The SDK chooses the scope it requests itself on a 401: the `scope` of the WWW-Authenticate
challenge, else the PRM's `scopes_supported`, else the authorization server's; `--scope` is
only used when none of them names one (mcp/client/auth/utils.py get_client_metadata_scopes).

--token-only checks the SDK's token request alone, without an MCP server: it fetches the
issuer's metadata the way the SDK does and sends the request the provider builds, with
--url as the resource, then prints the token response (and the JWT's claims, if it is one).

Run it in the virtualenv of scripts/interop-setup ($INTEROP_PYTHON).
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import sys
import warnings
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    create_oauth_metadata_request,
    handle_auth_metadata_response,
    validate_metadata_issuer,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryStorage(TokenStorage):
    """Tokens and client information for this run only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="the MCP endpoint, e.g. http://127.0.0.1:8080/mcp")
    p.add_argument("--client-id", required=True)
    p.add_argument("--client-secret", required=True)
    p.add_argument("--scope", default=None, help="space-separated scopes (see above for when they are used)")
    p.add_argument(
        "--issuer",
        default=None,
        help="the authorization server's issuer; credentials are only ever sent to it (the SDK "
        "warns that omitting it is deprecated)",
    )
    p.add_argument(
        "--auth-method", choices=["client_secret_basic", "client_secret_post"], default="client_secret_basic"
    )
    p.add_argument("--tool", default="whoami", help="the tool to call (default: whoami)")
    p.add_argument("--arguments", default="{}", help="the tool's arguments, as a JSON object")
    p.add_argument("--mode", choices=["auto", "legacy"], default="auto", help="the Client's mode")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds for the whole run")
    p.add_argument("--token-only", action="store_true", help="only the SDK's token request (needs --issuer)")
    p.add_argument("-v", "--verbose", action="store_true", help="log the SDK's OAuth flow to stderr")
    return p.parse_args(argv)


def oauth_provider(args: argparse.Namespace) -> ClientCredentialsOAuthProvider:
    with warnings.catch_warnings():
        # The deprecation of a missing issuer is the caller's choice here.
        warnings.simplefilter("ignore")
        return ClientCredentialsOAuthProvider(
            server_url=args.url,
            storage=MemoryStorage(),
            client_id=args.client_id,
            client_secret=args.client_secret,
            token_endpoint_auth_method=args.auth_method,
            scope=args.scope,
            issuer=args.issuer,
        )


def jwt_claims(token: str) -> dict[str, Any] | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    decode = lambda part: json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))  # noqa: E731
    return {"header": decode(parts[0]), "claims": decode(parts[1])}


async def token_only(args: argparse.Namespace) -> dict[str, Any]:
    """The SDK's own discovery of the issuer's metadata and its client-credentials request."""
    if not args.issuer:
        raise SystemExit("--token-only needs --issuer")
    provider = oauth_provider(args)
    context = provider.context
    await provider._initialize()  # noqa: SLF001 - the client info, as the flow sets it
    context.auth_server_url = args.issuer
    async with httpx2.AsyncClient(timeout=10) as http:
        for url in build_oauth_authorization_server_metadata_discovery_urls(args.issuer, args.url):
            ok, metadata = await handle_auth_metadata_response(await http.send(create_oauth_metadata_request(url)))
            if metadata is not None:
                validate_metadata_issuer(metadata, args.issuer)
                context.oauth_metadata = metadata
                break
            if not ok:
                break
        if context.oauth_metadata is None:
            raise RuntimeError(f"no authorization server metadata for {args.issuer}")
        # As after a 401 from a modern server (PRM found, or MCP-Protocol-Version >= 2025-06-18):
        # the request carries resource=<the server URL> (RFC 8707).
        context.protocol_version = "2025-11-25"
        request = await provider._exchange_token_client_credentials()  # noqa: SLF001
        response = await http.send(request)
        await response.aread()
        await provider._handle_token_response(response)  # noqa: SLF001
    tokens = context.current_tokens
    assert tokens is not None
    sent = dict(httpx2.QueryParams(request.content.decode()))
    return {
        "token_endpoint": str(request.url),
        "request": {k: v for k, v in sent.items() if k != "client_secret"},
        "basic_auth": "authorization" in request.headers,
        "token_response": tokens.model_dump(mode="json", exclude_none=True),
        "jwt": jwt_claims(tokens.access_token),
    }


async def call(args: argparse.Namespace) -> dict[str, Any]:
    arguments = json.loads(args.arguments)
    http = create_mcp_http_client(auth=oauth_provider(args))
    async with http:
        client = Client(
            streamable_http_client(args.url, http_client=http),
            mode=args.mode,
            client_info=types.Implementation(name="mcp-framework-auth-interop", version="0.1.0"),
            read_timeout_seconds=args.timeout,
        )
        async with client:
            result = await client.call_tool(args.tool, arguments)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def describe(e: BaseException) -> str:
    """The innermost reasons, without the task groups around them."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in e.exceptions)
    return f"{type(e).__name__}: {e}"


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.WARNING)

    async def run() -> dict[str, Any]:
        with anyio.fail_after(args.timeout):
            return await (token_only(args) if args.token_only else call(args))

    try:
        out = anyio.run(run)
    except Exception as e:  # noqa: BLE001 - every failure is reported the same way
        if args.verbose:
            raise
        print(f"auth_client: {describe(e)}", file=sys.stderr)
        return 1
    print(json.dumps(out, ensure_ascii=False))
    return 1 if out.get("isError") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
