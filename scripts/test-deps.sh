#!/usr/bin/env bash
# Install what the tests need beyond cargo. Each part does nothing when it is already there.
# With --plan, install nothing: say what is needed, why, and what is missing and would be
# installed (`make test` runs that first, before anything else).
set -euo pipefail
cd "$(dirname "$0")/.."

node_dir="${CARGO_TARGET_DIR:-target}/test-node"
venv="${CARGO_TARGET_DIR:-target}/test-venv"
requirements=tests/mcp/requirements.txt

# What is missing.
need_chromium=false
[ -x /usr/bin/chromium ] || need_chromium=true
# The tools the other two installs run: npm (and node, which runs the browser test), python3
# with its venv module. Debian's packages when missing, as Chromium is.
need_tools=()
command -v node >/dev/null 2>&1 || need_tools+=(nodejs)
command -v npm >/dev/null 2>&1 || need_tools+=(npm)
if ! command -v python3 >/dev/null 2>&1; then
  need_tools+=(python3 python3-venv)
elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need_tools+=(python3-venv)
fi
need_node=false
[ -f "$node_dir/node_modules/playwright-core/package.json" ] || need_node=true
need_venv=false
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/.requirements"; then
  need_venv=true
fi

state() { if "$1"; then echo "missing: will be installed"; else echo "present"; fi; }
if [ "${1:-}" = "--plan" ]; then
  {
    echo "make test needs, beyond cargo (each installed only when missing):"
    if [ ${#need_tools[@]} -eq 0 ]; then tools="present"; else
      tools="missing ${need_tools[*]}: will be installed"; fi
    echo "  node, npm and python3 with venv, Debian's packages (apt-get, as root), which run" \
      "the installs below and the browser test: $tools"
    echo "  chromium, the Debian package (apt-get, as root), for the viewer's browser test" \
      "(tests/view/browser.mjs): $(state $need_chromium)"
    echo "  playwright-core from npm (into $node_dir), which drives that browser:" \
      "$(state $need_node)"
    echo "  the official MCP Python SDK ($(grep -v '^#' "$requirements" | tr '\n' ' ')from pip," \
      "into $venv), the client of the MCP test: $(state $need_venv)"
  } >&2
  exit 0
fi

# The viewer's browser test (tests/view/browser.mjs, run by tests/cli/view.rs): Debian's
# Chromium at /usr/bin/chromium, driven by playwright-core from the npm registry (which never
# downloads a browser of its own). A missing piece that cannot be installed fails the script:
# the browser test must fail, not skip.
packages=("${need_tools[@]}")
$need_chromium && packages+=(chromium)
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing ${packages[*]}; install them (Debian's packages of these names)" \
      "as root, or run make test as root on Debian or Ubuntu" >&2
    exit 1
  fi
  echo "installing ${packages[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    "${packages[@]}" >/dev/null
fi
if $need_node; then
  mkdir -p "$node_dir"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$node_dir" --no-save --no-audit \
    --no-fund --loglevel=error playwright-core@1 >&2
  echo "installed playwright-core into $node_dir" >&2
fi

# The MCP test (tests/cli/mcp.rs): a Python virtual environment with the official MCP SDK
# pinned in tests/mcp/requirements.txt, reinstalled when that file changes. A failure fails
# the script.
if $need_venv; then
  python=${PYTHON:-$(command -v python3 || command -v python || true)}
  if [ -z "$python" ]; then
    echo "error: python3 is needed to create $venv" >&2
    exit 1
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/.requirements"
  echo "installed $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
fi
