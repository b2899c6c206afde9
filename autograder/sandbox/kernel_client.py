"""A notebook client that bounds what it takes from a kernel.

The kernel runs the adversary's code and may send anything.  This client keeps at most a
budget of output per cell and per notebook, refuses a message larger than the cell's budget
before decoding it (and stops the kernel, as for a flood), drops a message it cannot decode
or that nests too deep, keeps a note for an output nbformat refuses, and has its sockets drop
any message past a hard size before holding it.

Its kernel client also knows when a fresh kernel is ready without waiting on a clock
(:func:`ready_client_class`).
"""

from __future__ import annotations

import json
import time

import nbformat

from autograder.values import outputs

MAX_MESSAGE = 256 << 20  # bytes: the largest message the grader will receive from a kernel at all
RECONNECT_MS = 5  # how soon a socket whose kernel is not listening yet tries again



def placeholder(note: str) -> dict:
    """What a refused message's content becomes: harmless as a stream, a display or a status."""
    return {"name": "stdout", "text": note, "data": {"text/plain": note} if note else {}, "metadata": {},
            "transient": {}, "execution_state": "busy", "wait": False}



def ready_client_class():
    """jupyter_client's asynchronous kernel client, but ready as soon as the kernel is.

    jupyter_client's ``wait_for_ready`` sends ``kernel_info``, takes any IOPub message within 0.2 s as the
    sign that IOPub is connected, then reads IOPub until it has been quiet for 0.2 s: every kernel start
    waits that 0.2 s at least, and it was a third of a fresh sandboxed kernel's start.  This client waits
    for the reply to its ``kernel_info`` and then for the kernel's *idle* status of that request on IOPub,
    which proves IOPub connected and comes after everything the kernel sent before it.  A subscriber
    connecting late misses what was published before it connected; the kernel greets each new
    subscriber (``iopub_welcome``), so a greeting seen means "ask again, now the answer will come",
    and a kernel that does not greet is asked again every 0.2 s, as jupyter_client does."""
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient

    def replies_to(msg: dict, sent: list[str], msg_type: str) -> bool:
        return (isinstance(msg, dict) and msg.get("msg_type") == msg_type
                and (msg.get("parent_header") or {}).get("msg_id") in sent)

    class ReadyClient(AsyncKernelClient):
        async def _next(self, channel, want, wait: float, deadline: float):
            """The first message on ``channel`` that ``want`` accepts, within ``wait`` seconds; or None."""
            until = min(time.monotonic() + wait, deadline)
            while (left := until - time.monotonic()) > 0:
                try:
                    msg = await channel.get_msg(timeout=left)
                except Empty:
                    return None
                if want(msg):
                    return msg
            return None

        async def _ready(self, timeout: float | None = None) -> None:
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            sent: list[str] = []
            welcomed = False

            def idle_or_welcome(m: dict) -> bool:
                if isinstance(m, dict) and m.get("msg_type") == "iopub_welcome":
                    return not welcomed
                return replies_to(m, sent, "status") and (m.get("content") or {}).get("execution_state") == "idle"

            while True:
                sent.append(self.kernel_info())
                reply = await self._next(self.shell_channel, lambda m: replies_to(m, sent[-1:], "kernel_info_reply"),
                                         1.0, deadline)
                if reply is not None:
                    found = await self._next(self.iopub_channel, idle_or_welcome, 1.0 if welcomed else 0.2, deadline)
                    if found is not None and found.get("msg_type") != "iopub_welcome":
                        self._handle_kernel_info_reply(reply)
                        return
                    welcomed = welcomed or found is not None  # subscribed now: the next request's status comes
                if not await self._async_is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

        wait_for_ready = _ready
        _async_wait_for_ready = _ready

    return ReadyClient


def limited_client_class():
    """An nbclient ``NotebookClient`` that keeps at most ``output_budget`` bytes of output per cell
    and ``notebook_budget`` in all.

    Output past the budget is dropped as it arrives (so a flood cannot fill the
    grader's memory); past 16 times the budget the cell is stopped.  A single message
    larger than the cell's budget is refused before it is decoded (the kernel is stopped
    as for a flood), and the sockets refuse messages past a hard size, so one huge
    message cannot make the grader decode or hold it.
    """
    import zmq
    import zmq.asyncio
    from nbclient import NotebookClient

    class LimitedNotebookClient(NotebookClient):
        output_budget = 1 << 20
        notebook_budget = 16 << 20

        flooded = 0
        _notebook_used = 0

        def create_kernel_manager(self):
            km = super().create_kernel_manager()
            # the client's sockets drop any message past a hard size before it is held in memory (the
            # kernel is then cut off, and its cell runs into its time limit); below that size, the
            # unpacker refuses a message past the cell's budget before decoding it
            self.zmq_context = zmq.asyncio.Context()
            self.zmq_context.setsockopt(zmq.MAXMSGSIZE, max(MAX_MESSAGE, 16 * self.output_budget))
            # the client connects while the fresh kernel is still starting, before its sockets exist;
            # a refused connection is tried again after RECONNECT_IVL, 100 ms by default, which made
            # the wait for a ready kernel about 0.1 s longer than the kernel's own start
            self.zmq_context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
            km.client_factory = ready_client_class()
            make_client = km.client
            km.client = lambda **kw: make_client(**{"context": self.zmq_context, **kw})
            unpack = km.session.unpack
            client = self

            def guarded_unpack(data):
                if len(data) > client.output_budget + (64 << 10):
                    client.stop_flood(len(data))
                    return placeholder("")
                try:
                    found = unpack(data)
                except (ValueError, RecursionError, UnicodeDecodeError, TypeError):
                    return placeholder("[a message that could not be decoded was dropped]\n")
                if outputs.too_deep(found, 64):
                    return placeholder("[a message nested too deep was dropped]\n")
                return found

            km.session.unpack = guarded_unpack
            return km

        @property
        def kernel_pid(self) -> int | None:
            """The kernel's process id, as this machine sees it (None before it starts)."""
            return getattr(getattr(self.km, "provisioner", None), "pid", None)

        def stop_flood(self, amount: int) -> None:
            """Stop the kernel at once: the dead kernel ends the cell."""
            if self.flooded:
                return
            self.flooded = amount
            process = getattr(getattr(self.km, "provisioner", None), "process", None)
            if process is not None:  # its own kill: it never signals a pid that was reused
                try:
                    process.kill()
                except OSError:  # it ended already
                    pass

        def start_cell_budget(self) -> None:
            self._used, self._dropped, self._noted = 0, 0, False

        def output(self, outs, msg, display_id, cell_index):
            size = len(json.dumps(msg.get("content", {}), default=str))
            if self._notebook_used + size > self.notebook_budget:
                self._used = self.output_budget  # the notebook's budget is spent: drop as for a full cell
            if self._used + size > self.output_budget:
                self._dropped += size
                if not self._noted:
                    self._noted = True
                    outs.append(nbformat.v4.new_output(
                        "stream", name="stdout",
                        text=f"\n... output past {self.output_budget >> 10} KiB dropped ...\n"))
                if self._dropped > 16 * self.output_budget:
                    self.stop_flood(self._used + self._dropped)  # stop the flood at its source
                return None
            self._used += size
            self._notebook_used += size
            try:
                return super().output(outs, msg, display_id, cell_index)
            except Exception as exc:  # noqa: BLE001 - an output nbformat refuses: keep a note, run on
                outs.append(nbformat.v4.new_output(
                    "stream", name="stdout", text=f"[an output that is not valid in a notebook was dropped: "
                                                  f"{type(exc).__name__}]\n"))
                return None

    return LimitedNotebookClient

