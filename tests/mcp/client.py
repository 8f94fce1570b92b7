"""Drive `sparks serve` with the official Python MCP SDK, for tests/cli/mcp.rs.

usage: client.py SPARKS VAULT SCENARIO OUTSIDE

Starts `SPARKS serve` with VAULT as its working directory, initializes, lists the tools, then
runs the steps of the JSON file SCENARIO in order: {"tool": NAME, "arguments": {...}} calls a
tool, {"parallel": [CALL, ...]} makes several calls at once, {"write": PATH, "content": TEXT}
writes a vault file. Then, unless OUTSIDE is "-", starts a second server in OUTSIDE (a
directory with no vault) and talks raw JSON-RPC to it, garbage included.

Prints one JSON object per line, facts only; the Rust test makes every judgement. Exits
non-zero only when something unexpected stops it.
"""

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

TIMEOUT = 60


def emit(record):
    print(json.dumps(record), flush=True)


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def sdk_session(sparks, vault, steps):
    server = StdioServerParameters(command=sparks, args=["serve"], cwd=vault, env=dict(os.environ))
    # A line on the server's stdout that is not a JSON-RPC message arrives here.
    problems = []

    async def on_message(message):
        if isinstance(message, Exception):
            problems.append(repr(message))

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            started = time.monotonic()
            init = await session.initialize()
            emit({"kind": "initialize", "seconds": time.monotonic() - started, "result": dump(init)})
            tools = await session.list_tools()
            emit({"kind": "tools", "tools": [dump(t) for t in tools.tools]})
            for i, step in enumerate(steps):
                if "write" in step:
                    path = Path(vault, step["write"])
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(step["content"])
                    emit({"kind": "write", "step": i, "path": step["write"]})
                    continue
                if "parallel" in step:
                    calls = [call(session, c) for c in step["parallel"]]
                    emit({"kind": "parallel", "step": i, "records": await asyncio.gather(*calls)})
                    continue
                emit({"kind": "call", "step": i, **await call(session, step)})
            emit({"kind": "stdout", "problems": problems})


async def call(session, step):
    """Call a tool: its result, or the JSON-RPC error it got."""
    record = {"tool": step["tool"]}
    try:
        result = await session.call_tool(step["tool"], step.get("arguments", {}))
        record["result"] = dump(result)
    except MCPError as e:
        record["error"] = {"code": e.code, "message": e.message}
    return record


class Raw:
    """A server on raw pipes: lines in, lines out, no SDK in between."""

    def __init__(self, sparks, cwd):
        self.proc = subprocess.Popen(
            [sparks, "serve"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def request(self, id, method, params=None):
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message))

    def until(self, id):
        """Every message received up to and including the response to `id`."""
        messages = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError(f"the server closed stdout before answering {id}")
            messages.append({"bytes": len(line.rstrip("\n").encode()), "message": json.loads(line)})
            if messages[-1]["message"].get("id") == id:
                return messages

    def close(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=TIMEOUT)


def raw_session(sparks, outside):
    raw = Raw(sparks, outside)
    started = time.monotonic()
    raw.request(1, "initialize", {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    })
    emit({"kind": "raw", "what": "initialize", "seconds": time.monotonic() - started,
          "messages": raw.until(1)})
    raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    raw.send("this line is not JSON {")
    raw.request(2, "ping")
    emit({"kind": "raw", "what": "garbage", "messages": raw.until(2)})
    raw.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": 42}))
    raw.request(4, "ping")
    emit({"kind": "raw", "what": "not_json_rpc", "messages": raw.until(4)})
    raw.request(5, "tools/list")
    emit({"kind": "raw", "what": "tools_list", "messages": raw.until(5)})
    raw.request(6, "tools/call", {"name": "sparks_status", "arguments": {}})
    emit({"kind": "raw", "what": "no_vault", "messages": raw.until(6)})
    raw.request(7, "tools/call", {"name": "sparks_describe", "arguments": {}})
    emit({"kind": "raw", "what": "describe", "messages": raw.until(7)})
    emit({"kind": "raw", "what": "exit", "code": raw.close()})


def main():
    sparks, vault, scenario, outside = sys.argv[1:5]
    steps = json.loads(Path(scenario).read_text())
    asyncio.run(asyncio.wait_for(sdk_session(sparks, vault, steps), TIMEOUT * 5))
    if outside != "-":
        raw_session(sparks, outside)
    emit({"kind": "done"})


if __name__ == "__main__":
    main()
