#!/usr/bin/env bash
# Installs a real VS Code (1.100.3 server + web workbench, as shipped in code-server@4.100.3) into a
# git-ignored cache, so integration and UI tests can run in a real extension host without downloading a
# desktop VS Code. Idempotent: a stamp file makes a second run instant.
#
#   bash scripts/install-vscode-web.sh          # installs into .vscode-test/vscode-web
#   VSCODE_WEB_DIR=/some/dir bash scripts/...   # installs elsewhere
#   FORCE=1 bash scripts/...                    # reinstalls even if the stamp exists
#
# Why not a plain `npm install code-server`: its install scripts download ripgrep from the internet and
# fail offline. So everything is installed with --ignore-scripts and only the native modules the server
# needs are rebuilt (argon2, @vscode/spdlog, native-watchdog, @parcel/watcher). node-pty (terminals) is
# skipped. Each native module is then require()d to prove the rebuild really happened (npm 11 prints
# "install scripts not covered by allowScripts" warnings; they are notices, the check below is the proof),
# and the server is started once and asked for /healthz.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${VSCODE_WEB_DIR:-$ROOT/.vscode-test/vscode-web}"
STAMP="$DIR/.installed-code-server-$CODE_SERVER_VERSION"
NPM_FLAGS=(--no-audit --no-fund --ignore-scripts --loglevel=error)

say() { printf '[install-vscode-web] %s\n' "$*"; }

if [[ -f "$STAMP" && -z "${FORCE:-}" ]]; then
  say "code-server $CODE_SERVER_VERSION already installed in $DIR (stamp found; FORCE=1 to reinstall)"
  exit 0
fi

for tool in node npm g++ make python3; do
  command -v "$tool" >/dev/null || { say "missing build tool: $tool (apt-get install -y g++ make python3)"; exit 1; }
done

say "installing code-server@$CODE_SERVER_VERSION into $DIR"
rm -f "$STAMP"
mkdir -p "$DIR"
cd "$DIR"
[[ -f package.json ]] || echo '{"name":"vscode-web-cache","private":true}' > package.json

say "1/5 npm install code-server (scripts disabled)"
npm install --no-save "${NPM_FLAGS[@]}" "code-server@$CODE_SERVER_VERSION"

say "2/5 rebuilding argon2 (code-server's password hashing; loaded at startup)"
npm rebuild --no-audit --no-fund argon2

VSCODE="$DIR/node_modules/code-server/lib/vscode"
cd "$VSCODE"
say "3/5 installing VS Code's own production dependencies (scripts disabled)"
npm install --omit=dev "${NPM_FLAGS[@]}"
say "    rebuilding native modules: @vscode/spdlog native-watchdog @parcel/watcher"
npm_config_yes=true npm rebuild --no-audit --no-fund @vscode/spdlog native-watchdog @parcel/watcher
# VS Code's server loads its modules from node_modules.asar; code-server ships them unpacked.
ln -sfn node_modules node_modules.asar
# Search needs a ripgrep binary; its download fails offline. Use Debian's if there is one.
if command -v rg >/dev/null && [[ -d node_modules/@vscode/ripgrep ]]; then
  mkdir -p node_modules/@vscode/ripgrep/bin && ln -sfn "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  say "    linked $(command -v rg) as VS Code's ripgrep"
fi

say "4/5 installing built-in extensions' dependencies (scripts disabled)"
(cd extensions && npm install --omit=dev "${NPM_FLAGS[@]}")

say "5/5 verifying"
for mod in @vscode/spdlog native-watchdog @parcel/watcher; do
  node -e "require('$mod')" || { say "native module $mod does not load: the rebuild did not happen"; exit 1; }
  say "    $mod loads"
done
(cd "$DIR" && node -e "require('argon2')") || { say "native module argon2 does not load"; exit 1; }
say "    argon2 loads"

PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
SCRATCH="$(mktemp -d)"
node "$DIR/node_modules/code-server/out/node/entry.js" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --user-data-dir "$SCRATCH/user" --extensions-dir "$SCRATCH/ext" \
  "$SCRATCH" >"$SCRATCH/server.log" 2>&1 &
SERVER_PID=$!
cleanup() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$SCRATCH"; }
trap cleanup EXIT
ok=""
for _ in $(seq 1 150); do   # up to ~30 s
  if node -e "fetch('http://127.0.0.1:$PORT/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then ok=1; break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.2
done
if [[ -z "$ok" ]]; then
  say "code-server did not answer /healthz; its log:"; cat "$SCRATCH/server.log"; exit 1
fi
say "    code-server started and answered /healthz on 127.0.0.1:$PORT"

date -u +%FT%TZ > "$STAMP"
say "done: $DIR (VS Code $(node -p "require('$VSCODE/package.json').version"))"
