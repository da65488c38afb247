"""A small server written with the official MCP Python SDK (mcp 2.3.0, `MCPServer`), for the
Rust client's tests (tests/client_interop.rs): a tool with structured output, a tool that
asks the user (elicitation), a prompt and a resource.

    python python_server.py stdio
    python python_server.py http PORT      # Streamable HTTP at http://127.0.0.1:PORT/mcp
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

server = MCPServer("python-notes")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


class Name(BaseModel):
    name: str


def the_name() -> Elicit[Name]:
    """Asks the user: an input request of the call (2026-07-28) or an
    `elicitation/create` request in the middle of it (legacy)."""
    return Elicit("What is your name?", Name)


@server.tool()
async def ask_name(name: Annotated[Name, Resolve(the_name)]) -> str:
    """Greets the user by the name it asks them for."""
    return f"Hello, {name.name}!"


@server.prompt()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Say hello to {name}."


@server.resource("note://first", mime_type="text/plain")
def first_note() -> str:
    """The first note."""
    return "the first note"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
