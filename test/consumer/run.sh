#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, the tarball installed into a fresh project with only its peer
# dependencies, type-checked there (strict, moduleResolution nodenext), and the README's examples run there
# unchanged on plain Node (the lowest we support and Node 24), plus the `effect-a2a` command from the tarball.
#
#   bash test/consumer/run.sh            # Node 24 (this repository's) and Node 22 (installed from npm, cached)
#   CONSUMER_NODES=24 bash test/consumer/run.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

node24="$repo/node_modules/.bin/node"
lowest="22.19.0"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/effect-a2a/node-$lowest"
nodes="${CONSUMER_NODES:-22 24}"

echo "consumer: packing"
(cd "$repo" && PATH="$repo/node_modules/.bin:$PATH" npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/effect-a2a-*.tgz)"

app="$work/app"
mkdir -p "$app/src"
cat > "$app/package.json" <<JSON
{ "name": "consumer-app", "private": true, "type": "module" }
JSON
cat > "$app/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023", "DOM"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true,
    "types": ["node"], "noEmit": true, "skipLibCheck": false
  },
  "include": ["src"]
}
JSON
cp "$repo/examples/echo-agent.ts" "$repo/examples/client.ts" "$repo/examples/llm-agent.ts" "$repo/examples/orchestrator.ts" "$app/src/"
# Every entry point, so a consumer's tsc reads all of the declarations.
cat > "$app/src/entries.ts" <<'TS'
import { A2AError } from "effect-a2a/protocol"
import type { Task } from "effect-a2a/protocol/v1"
import type { Task as Task03 } from "effect-a2a/protocol/v0_3"
import { A2AServer, AgentExecutor } from "effect-a2a/server"
import { A2AHttp } from "effect-a2a/http"
import { ApiDocs, DevUi, OpenApiDocument } from "effect-a2a/pages"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AWeb, WebPush } from "effect-a2a/web"
import { SqlStore } from "effect-a2a/sql"
import { A2AClient } from "effect-a2a/client"
import { A2A03 } from "effect-a2a/v0_3"
import { A2A01 } from "effect-a2a/v0_1"
import { LlmAgent } from "effect-a2a/ai"
import { AiSdkLanguageModel, ModelSpec } from "effect-a2a/ai-providers"
import { AgentCall, McpGateway } from "effect-a2a/mcp"
import { Gateway, GatewayRegistry } from "effect-a2a/gateway"

export const used = [A2AError.TaskNotFound, A2AServer.layer, AgentExecutor.replyWithText, A2AHttp.routes,
  OpenApiDocument.make, ApiDocs.documentRoutes, DevUi.routes, NodeA2AServer.serve, A2AWeb.make, WebPush.layer, SqlStore.layerSqlite, A2AClient.resolve,
  A2A03.layer, A2A01.layer, LlmAgent.layer, AiSdkLanguageModel.layer, ModelSpec.layer, AgentCall.call,
  McpGateway.layerStdio, Gateway.routes, GatewayRegistry.layer] as const
export type Used = readonly [Task, Task03]
TS

# @ai-sdk/provider for the types of effect-a2a/ai-providers; its declarations import "json-schema", whose types a
# strict project (skipLibCheck false) needs as well, as any AI SDK user's does
echo "consumer: installing the tarball with its peers (effect, @effect/platform-node, @ai-sdk/provider)"
effect_version="$(cd "$repo" && "$node24" -p 'require("effect/package.json").version')"
platform_version="$(cd "$repo" && "$node24" -p 'require("@effect/platform-node/package.json").version')"
ai_provider_version="$(cd "$repo" && "$node24" -p 'require("@ai-sdk/provider/package.json").version')"
(cd "$app" && PATH="$repo/node_modules/.bin:$PATH" npm install --silent --no-audit --no-fund \
  "$tarball" "effect@$effect_version" "@effect/platform-node@$platform_version" \
  "@ai-sdk/provider@$ai_provider_version" @types/json-schema@7.0.15 typescript@6.0.3 @types/node@24.19.2 >/dev/null)
if [ -e "$app/node_modules/@ai-sdk/openai" ]; then echo "consumer: FAIL: the optional @ai-sdk/openai was installed"; exit 1; fi
if [ -e "$app/node_modules/@effect/sql-pg" ]; then echo "consumer: FAIL: the optional @effect/sql-pg was installed"; exit 1; fi
if [ -e "$app/node_modules/effect-a2a/node_modules/effect" ]; then echo "consumer: FAIL: a second copy of effect"; exit 1; fi
# dist's own package.json: the nearest one Node's resolver reads on every import from our modules, so it holds only
# the module type and sideEffects, not the package's exports map (BENCHMARKS.md, "Start-up memory").
"$node24" -e '
  const [p, root] = process.argv.slice(1).map((f) => require(f))
  const sideEffects = JSON.stringify(root.sideEffects.map((f) => f.replace(/^\.\/dist\//, "./")))
  if (p.type !== "module" || "exports" in p || "name" in p || JSON.stringify(p.sideEffects) !== sideEffects) {
    console.error("consumer: FAIL: dist/package.json", p); process.exit(1)
  }
' "$app/node_modules/effect-a2a/dist/package.json" "$app/node_modules/effect-a2a/package.json"

echo "consumer: tsc (strict, nodenext)"
(cd "$app" && "$node24" node_modules/typescript/bin/tsc -p tsconfig.json)

wait_for_port() { # port, seconds
  for _ in $(seq 1 $(( $2 * 10 ))); do
    if "$node24" -e "require('net').connect($1,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

run_examples() { # node binary
  local node="$1" out
  if wait_for_port 8080 0; then echo "consumer: FAIL: port 8080 is taken (the README's example listens there)"; exit 1; fi
  "$node" "$app/src/echo-agent.ts" > "$work/server.log" 2>&1 &
  server_pid=$!
  if ! wait_for_port 8080 30; then echo "consumer: FAIL: echo-agent did not listen"; cat "$work/server.log"; exit 1; fi
  out="$(cd "$app" && "$node" src/client.ts http://127.0.0.1:8080 2>&1)" || { echo "$out"; exit 1; }
  echo "$out" | sed 's/^/    /'
  grep -q "You said: hello" <<<"$out" || { echo "consumer: FAIL: no reply from the echo agent"; exit 1; }
  out="$(cd "$app" && "$node" node_modules/.bin/effect-a2a card http://127.0.0.1:8080 2>&1)" || { echo "$out"; exit 1; }
  grep -q "Echo agent" <<<"$out" || { echo "$out"; echo "consumer: FAIL: effect-a2a card"; exit 1; }
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

  # the LLM agent example (effect-a2a/ai, its scripted stand-in model): it calls its tool, then answers
  "$node" "$app/src/llm-agent.ts" > "$work/llm.log" 2>&1 &
  server_pid=$!
  if ! wait_for_port 8080 30; then echo "consumer: FAIL: llm-agent did not listen"; cat "$work/llm.log"; exit 1; fi
  out="$(cd "$app" && "$node" node_modules/.bin/effect-a2a send http://127.0.0.1:8080 "what time is it" 2>&1)" || { echo "$out"; exit 1; }
  echo "$out" | sed 's/^/    /'
  grep -q "It is 20" <<<"$out" || { echo "consumer: FAIL: no answer from the LLM agent"; exit 1; }
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

  # the orchestrator example (effect-a2a/mcp): an LLM agent on 8080 delegating to the agents on 8081 and 8082
  for port in 8081 8082; do
    if wait_for_port "$port" 0; then echo "consumer: FAIL: port $port is taken (the orchestrator example listens there)"; exit 1; fi
  done
  "$node" "$app/src/orchestrator.ts" > "$work/orchestrator.log" 2>&1 &
  server_pid=$!
  if ! wait_for_port 8080 30; then echo "consumer: FAIL: orchestrator did not listen"; cat "$work/orchestrator.log"; exit 1; fi
  out="$(cd "$app" && "$node" node_modules/.bin/effect-a2a send http://127.0.0.1:8080 "plan my Friday" 2>&1)" || { echo "$out"; exit 1; }
  echo "$out" | sed 's/^/    /'
  grep -q "Sunny in Paris, and you are free on Friday after 2pm." <<<"$out" || { echo "consumer: FAIL: no answer from the orchestrator"; exit 1; }
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

  # the command from the tarball: serve the demo (memory store), talk to it, stop it with SIGTERM
  (cd "$app" && PORT=8080 exec "$node" node_modules/.bin/effect-a2a serve --memory > "$work/serve.log" 2>&1) &
  server_pid=$!
  if ! wait_for_port 8080 30; then echo "consumer: FAIL: effect-a2a serve did not listen"; cat "$work/serve.log"; exit 1; fi
  out="$(cd "$app" && "$node" node_modules/.bin/effect-a2a send http://127.0.0.1:8080 "task write a report" 2>&1)" || { echo "$out"; exit 1; }
  grep -qi "completed" <<<"$out" || { echo "$out"; echo "consumer: FAIL: effect-a2a send"; exit 1; }
  # the dev UI and the API docs ship inside the package: the demo serves their pages and scripts, and the document
  "$node" -e "Promise.all(['/_dev','/_dev/app.js','/docs','/docs/app.js','/openapi.json'].map(p=>fetch('http://127.0.0.1:8080'+p).then(r=>r.status))).then(s=>process.exit(s.every(x=>x===200)?0:1))" \
    || { echo "consumer: FAIL: the dev UI or the API docs are not served"; exit 1; }
  kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

  # serve --model without its provider package (an optional peer, not installed here): one line, exit 1
  local code=0
  out="$(cd "$app" && OPENAI_API_KEY=sk-consumer "$node" node_modules/.bin/effect-a2a serve --memory --port 0 \
    --model openai:gpt-4o-mini 2>&1)" || code=$?
  if [ "$code" != 1 ] || ! grep -q "needs the package @ai-sdk/openai: npm install @ai-sdk/openai zod" <<<"$out"; then
    echo "$out"; echo "consumer: FAIL: serve --model without @ai-sdk/openai (exit $code)"; exit 1
  fi
}

for major in $nodes; do
  case "$major" in
    24) node="$node24" ;;
    22)
      if [ ! -x "$cache/node_modules/.bin/node" ]; then
        echo "consumer: installing Node $lowest from the npm registry into $cache"
        npm install --silent --no-audit --no-fund --prefix "$cache" "node@$lowest" >/dev/null
      fi
      node="$cache/node_modules/.bin/node" ;;
    *) echo "consumer: unknown Node $major"; exit 1 ;;
  esac
  echo "consumer: the README's examples on Node $("$node" --version)"
  run_examples "$node"
done
echo "consumer: passed"
