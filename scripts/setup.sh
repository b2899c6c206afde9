#!/usr/bin/env bash
# Set up everything the course needs on a fresh Debian/Ubuntu machine (or a conda env):
#   * system packages, when run as root with apt: bubblewrap (the grading sandbox),
#     Slurm and munge (the cluster tests), Chromium and its driver (the browser tests), npm (the
#     class server's proxy, installed into $VENV);
#   * a virtual environment in $VENV (default .venv) with the project and its dev extras.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v setpriv >/dev/null || need_apt+=(util-linux)
command -v slurmctld >/dev/null || need_apt+=(slurm-wlm)
command -v munged >/dev/null || need_apt+=(munge)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
command -v npm >/dev/null || need_apt+=(npm)  # JupyterHub's proxy (the class server) is a Node package
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing system packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "warning: missing system packages (${need_apt[*]}); install them as root for the sandbox, Slurm and browser tests" >&2
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
echo "installing the course and its dependencies into $VENV (torch comes from local wheels when present)"
"$VENV/bin/python" -m pip install -q -e ".[dev]" 2>&1 | grep -v "^WARNING: Location" || true
if [ ! -e "$VENV/bin/configurable-http-proxy" ]; then
  if command -v npm >/dev/null; then
    echo "installing JupyterHub's proxy (configurable-http-proxy) into $VENV"
    npm install -g --silent --prefix "$VENV" configurable-http-proxy@5 >/dev/null 2>&1 || \
      echo "warning: could not install configurable-http-proxy; the class server (autograder hub) needs it" >&2
  else
    echo "warning: npm is missing; the class server (autograder hub) needs JupyterHub's proxy from npm" >&2
  fi
fi
"$VENV/bin/python" -c "import torch, torchvision, nbgrader, autograder, jupyterhub" 
echo "setup done: $("$VENV/bin/python" -c 'import torch; print("torch", torch.__version__, "cuda" if torch.cuda.is_available() else "cpu")')"
# a class server (make class) runs this environment as every person of the class: say so now if they could not
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && \
   ! setpriv --reuid=65534 --regid=65534 --clear-groups -- "$VENV/bin/python" -c "import jupyterhub, nbgrader" >/dev/null 2>&1; then
  echo "note: other accounts cannot run $VENV (a folder above it is closed to them), so it cannot serve a class" \
       "(make class): for a class server, make one every account can run, e.g." \
       "PYTHON=/usr/bin/python3 VENV=/opt/pytorch-course make setup"
fi
