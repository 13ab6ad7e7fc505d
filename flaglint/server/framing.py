"""The Language Server Protocol's framing over stdio, read so that no message leaves the server deaf.

Each message is headers (`Content-Length: N`, one a line, ended by an empty line) and N bytes of
JSON. What the editor sends wrong is answered or skipped, and the server reads on:
- a body that is not JSON is answered with a parse error (JSON-RPC's -32700, id null); JSON that is no
  request or notification with an invalid request (-32600); a request whose parameters do not fit
  its method (a position at line -1) with invalid params (-32602), under its id;
- headers without a length are skipped; a length that does not match the body puts the reading out
  of step, and it steps back in at the next line that ends in a `Content-Length` header;
- a length past MAX_MESSAGE (no document the server checks comes near it) ends the connection, as
  reading that much would hold the server for as long as the editor writes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, BinaryIO, Callable

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError

from flaglint.core.reading import MANIFEST

logger = logging.getLogger(__name__)

# A manifest (the largest document kind the server checks) of 64 MiB, as a JSON string, escaped.
MAX_MESSAGE = 4 * MANIFEST.limit
_HEADER_LINE = 64 * 1024  # a header line is read in pieces of this size, so a line with no end is no burden
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*([0-9]{1,20})[ \t]*\r?\n\Z", re.I)


class Framing:
    """Messages read from STREAM, each handed to the protocol; replies to what cannot be handled
    are written with WRITE (a framed message's bytes)."""

    def __init__(self, protocol: Any, stream: BinaryIO, write: Callable[[bytes], Any]):
        self.protocol = protocol
        self.stream = stream
        self.write = write

    async def serve(self) -> None:
        """Read and handle messages until the stream ends or a message is too large to read."""
        loop = asyncio.get_running_loop()
        while True:
            length = await self._headers(loop)
            if length is None:
                return
            if length > MAX_MESSAGE:
                logger.error("a message of %d bytes, over the %d the server reads: the connection ends", length, MAX_MESSAGE)
                return
            body = await loop.run_in_executor(None, self._read_exactly, length)
            if body is None:
                return
            self._handle(body)

    async def _headers(self, loop: asyncio.AbstractEventLoop) -> int | None:
        """The Content-Length of the next message's headers; None at the end of the stream."""
        length = None
        while True:
            line = await loop.run_in_executor(None, self.stream.readline, _HEADER_LINE)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is not None:
                    return length
                continue  # an empty line with no length before it: out of step, or a stray line
            found = _CONTENT_LENGTH.search(line)
            if found:
                length = int(found.group(1))

    def _read_exactly(self, size: int) -> bytes | None:
        parts, left = [], size
        while left:
            part = self.stream.read(left)
            if not part:
                return None
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def _handle(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
            self._reply_error(None, JsonRpcParseError(f"the message is not JSON ({type(err).__name__})"))
            return
        if not (isinstance(data, dict) and data.get("jsonrpc") == "2.0"
                and (isinstance(data.get("method"), str) if "method" in data else "id" in data)):
            self._reply_error(data.get("id") if isinstance(data, dict) else None, JsonRpcInvalidRequest("not a JSON-RPC 2.0 message"))
            return
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcException as err:
            if "method" in data and "id" in data:  # a notification or a response gets no reply
                self._reply_error(data["id"], type(err)(f"{err.message} for {data['method']}"))
            return
        try:
            self.protocol.handle_message(message)
        except SystemExit:
            raise
        except Exception:  # noqa: BLE001 - one message that fails to be handled must not end the others
            logger.exception("a message could not be handled")

    def _reply_error(self, request_id: Any, error: JsonRpcException) -> None:
        reply = {"jsonrpc": "2.0", "id": request_id if isinstance(request_id, (str, int)) else None,
                 "error": {"code": error.code, "message": error.message}}
        body = json.dumps(reply).encode("utf-8")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
