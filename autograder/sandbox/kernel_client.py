"""A notebook client that bounds what it takes from a kernel.

The kernel runs the adversary's code and may send anything.  This client keeps at most a
budget of output per cell and per notebook, refuses a message larger than the cell's budget
before decoding it (and stops the kernel, as for a flood), drops a message it cannot decode
or that nests too deep, keeps a note for an output nbformat refuses, and has its sockets drop
any message past a hard size before holding it.
"""

from __future__ import annotations

import json
import os
import signal

import nbformat

from autograder.values import outputs

MAX_MESSAGE = 256 << 20  # bytes: the largest message the grader will receive from a kernel at all



def placeholder(note: str) -> dict:
    """What a refused message's content becomes: harmless as a stream, a display or a status."""
    return {"name": "stdout", "text": note, "data": {"text/plain": note} if note else {}, "metadata": {},
            "transient": {}, "execution_state": "busy", "wait": False}



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

        def stop_flood(self, amount: int) -> None:
            """Stop the kernel at once: the dead kernel ends the cell."""
            if self.flooded:
                return
            self.flooded = amount
            pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
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

