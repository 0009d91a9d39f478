#!/usr/bin/env bash
# Installs what the test suite starts for real, each a no-op once done:
#   pydraughts (pip, into .venv-pydraughts): the third-party rules oracle and Hub client;
#   Debian's chromium and the pinned playwright-core (apt, npm): the browser tests;
#   Debian's Slurm daemons and munge (apt): a one-node cluster for the cluster scripts,
#   started once here to check that it comes up.
# Then run the suite: tests/setup.sh && cargo test --release
set -euo pipefail
cd "$(dirname "$0")/.."
tests/pydraughts/install.sh
tests/browser/install.sh
deploy/slurm/test-cluster.sh true
