#!/usr/bin/env bash
# Installs the official implementations used as test oracles (npm packages) into DIR, once.
# scripts/install-deps.sh runs it; the tests only look for them (tests/testing/oracle.h).
# They are only ever used by tests; nothing in pcglab loads them.
set -euo pipefail
dir=${1:?usage: install.sh DIR}
mkdir -p "$dir"
# Tests run in parallel: one installer at a time.
exec 9>"$dir/.install.lock"
flock 9
if [ -f "$dir/node_modules/chatgpt4pcg/package.json" ] && [ -f "$dir/node_modules/words-count/package.json" ] &&
   grep -q '"version": "1.4.1"' "$dir/node_modules/chatgpt4pcg/package.json" &&
   grep -q '"version": "2.0.2"' "$dir/node_modules/words-count/package.json"; then
  exit 0
fi
command -v npm >/dev/null || { echo "oracle: npm is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
echo "oracle: installing chatgpt4pcg@1.4.1 and words-count@2.0.2 into $dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"pcglab-oracles","private":true}' > package.json
if ! npm install --no-audit --no-fund --loglevel=error --save-exact chatgpt4pcg@1.4.1 words-count@2.0.2 >npm.log 2>&1; then
  echo "oracle: npm install chatgpt4pcg@1.4.1 words-count@2.0.2 failed (is the npm registry reachable?):" >&2
  tail -5 npm.log >&2
  exit 2
fi
