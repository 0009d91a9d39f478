#!/usr/bin/env bash
# Installs the pinned pydraughts into the project-local virtual environment
# .venv-pydraughts, which tests/integration/pydraughts.rs uses. The tests' only network use;
# a no-op once installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-pydraughts
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("pydraughts") != "0.6.7")' 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r tests/pydraughts/requirements.txt
fi
