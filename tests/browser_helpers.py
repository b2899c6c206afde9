"""Helpers for the browser tests: a JupyterLab server on loopback in a private course copy,
and headless Chromium (the Debian package, no browser download) driven by Playwright."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = Path(os.environ.get("AUTOGRADER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]

# JupyterLab settings for a quiet, reproducible UI: no news or update pop-ups, no
# "kernel status" toasts, and a light theme for the screenshots.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
    "@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": "JupyterLab Light"},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tool_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra or {})
    return env


@dataclass
class LabServer:
    url: str          # http://127.0.0.1:PORT/
    token: str
    root: Path        # the course directory the server runs in
    process: subprocess.Popen
    log_path: Path

    def api(self, path: str, method: str = "GET", body: dict | None = None, timeout: float = 30) -> dict:
        req = urllib.request.Request(self.url + path.lstrip("/"), method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            data = r.read()
        return json.loads(data) if data else {}

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


@contextlib.contextmanager
def lab_server(course: Path, state: Path, timeout: float = 120, extra_env: dict[str, str] | None = None):
    """Run ``jupyter lab`` in ``course`` (its root, so nbgrader finds nbgrader_config.py), on a free
    loopback port with a random token; private config, runtime, settings and workspace folders
    under ``state``; ``extra_env`` on top (a student's user name and home, say).  Yields a :class:`LabServer`; stops the server afterwards."""
    port, token = free_port(), secrets.token_hex(16)
    dirs = {name: state / name for name in ("config", "data", "runtime", "settings", "workspaces")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    for rel, value in LAB_SETTINGS.items():
        f = dirs["settings"] / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(value))
    env = tool_env({
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
        "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
        "JUPYTER_PLATFORM_DIRS": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        **(extra_env or {}),
    })
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={course}",
           "--ServerApp.open_browser=False", "--LabApp.news_url=", "--LabApp.check_for_updates_class="
           "jupyterlab.handlers.announcements.NeverCheckForUpdate"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers
        cmd.append("--allow-root")
    log_path = state / "jupyter-lab.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    server = LabServer(f"http://127.0.0.1:{port}/", token, course, proc, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {proc.returncode}:\n{server.log()[-3000:]}")
            try:
                server.api("api/status", timeout=5)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"jupyter lab did not answer within {timeout:.0f} s:\n{server.log()[-3000:]}")
            time.sleep(0.5)
        yield server
    finally:
        with contextlib.suppress(Exception):
            for k in server.api("api/kernels", timeout=5):
                server.api(f"api/kernels/{k['id']}", method="DELETE", timeout=10)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@contextlib.contextmanager
def chromium(user_data_dir: Path, viewport=(1400, 900)):
    """A fresh headless Chromium from the system package, driven by Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    if user_data_dir.exists():
        shutil.rmtree(user_data_dir)
    user_data_dir.mkdir(parents=True)
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(user_data_dir), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
            viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=1,
            ignore_default_args=["--enable-automation"])
        try:
            yield context
        finally:
            context.close()
