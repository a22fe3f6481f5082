#!/bin/sh
# The walkthrough of docs/service.md, runnable as printed there: start `npm start` in another
# terminal, then `CTXKIT_KEY=ctx_… sh examples/service-walkthrough.sh` from the repository root.
# Uses a fresh session id per run (`walk-<time>`), so it can run again on the same state, and ends by
# deleting what it made (the memory of step 8 would otherwise reach the system prompt of every later
# session and proxied call of the tenant, the sessions of steps 7 and 9).
# B (default http://127.0.0.1:8787) points at another port.
set -eu
: "${CTXKIT_KEY:?set CTXKIT_KEY to the key npm start printed}"
B=${B:-http://127.0.0.1:8787}; H="authorization: Bearer $CTXKIT_KEY"; J='content-type: application/json'
S=walk-$(date +%s); L=logs-$(date +%s)
show() { printf '\n$ %s\n' "$1"; }

show "1. create a session"
curl -sf -X POST $B/v1/sessions -H "$H" -H "$J" -H "idempotency-key: create-$S" \
  -d '{"id":"'$S'","budget":{"contextWindow":32000}}'

show "2. append (OpenAI format); the Idempotency-Key makes a retry safe"
TURN='{"format":"openai","messages":[
  {"role":"user","content":"Which files are in src?"},
  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"path\":\"src\"}"}}]},
  {"role":"tool","tool_call_id":"c1","content":"index.ts\nworker.ts"},
  {"role":"assistant","content":"Two files: index.ts and worker.ts."}]}'
curl -sf -X POST $B/v1/sessions/$S/messages -H "$H" -H "$J" -H "idempotency-key: turn-1-$S" -d "$TURN"
show "2b. the same append retried: answered from the first result, stored once"
curl -sf -i -X POST $B/v1/sessions/$S/messages -H "$H" -H "$J" -H "idempotency-key: turn-1-$S" -d "$TURN" |
  grep -i '^idempotent-replayed'

show "3. prepare the next context (OpenAI dialect)"
curl -sf -X POST $B/v1/sessions/$S/prepare -H "$H" -H "$J" -d '{"dialect":"openai","system":"You are a coding agent."}'

show "4. stats (000's /context)"
curl -sf $B/v1/sessions/$S/stats -H "$H"

show "5. compaction with focus instructions"
curl -sf -X POST $B/v1/sessions/$S/compact -H "$H" -H "$J" -d '{"instructions":"Keep the file names."}'

show "6. the provider said the context is too long"
curl -sf -X POST $B/v1/sessions/$S/overflow -H "$H" -H "$J" -d '{"error":"prompt is too long: 210000 tokens > 200000 maximum"}'

show "7. a long tool output (examples/build-output.json) is cut on arrival and spilled to R2"
curl -sf -X POST $B/v1/sessions -H "$H" -H "$J" -d '{"id":"'$L'","config":{"outputTruncation":{"maxLines":5}}}'
APPENDED=$(curl -sf -X POST $B/v1/sessions/$L/messages -H "$H" -H "$J" --data @examples/build-output.json)
echo "$APPENDED"
BLOB=$(printf '%s' "$APPENDED" | node -e 'const r=JSON.parse(require("fs").readFileSync(0,"utf8"));process.stdout.write(r.journal.find((j)=>j.action==="spilled").location.slice(5))')
show "7b. read it back: whole, by Range, by query"
curl -sf $B/v1/blobs/$BLOB -H "$H" | head -3
curl -sf $B/v1/blobs/$BLOB -H "$H" -H 'range: bytes=0-99'; echo
curl -sf "$B/v1/blobs/$BLOB?start=100&end=200" -H "$H"; echo

show "8. long-term memory"
MEMORY=$(curl -sf -X POST $B/v1/memories -H "$H" -H "$J" -d '{"type":"decision","title":"Language","content":"TypeScript, ESM only."}')
echo "$MEMORY"
MEMORY_ID=$(printf '%s' "$MEMORY" | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0,"utf8")).memory.id)')
curl -sf -X POST $B/v1/memories/search -H "$H" -H "$J" -d '{"query":"TypeScript"}'

show "9. memory from other sessions is off unless a session asks (same project only)"
curl -sf -X POST $B/v1/sessions -H "$H" -H "$J" -d '{"id":"'$S'-recall","project":"demo","memory":{"recall":"project"}}'

show "10. start afresh (the log is kept unless purge), delete"
curl -sf -X POST $B/v1/sessions/$S/clear -H "$H"
curl -sf -o /dev/null -w '%{http_code}\n' -X DELETE $B/v1/sessions/$S -H "$H"

show "11. errors are JSON: a bad message (400), a wrong method (405 with Allow)"
curl -s -X POST $B/v1/sessions/$L/messages -H "$H" -H "$J" -d '{"messages":[{"parts":[]}]}'; echo
curl -s -i -X PUT $B/v1/sessions/$L -H "$H" | grep -i -E '^(HTTP|allow)'

show "12. clean up: the memory of step 8 (tenant-wide), the sessions of steps 7 and 9"
curl -sf -o /dev/null -w '%{http_code}\n' -X DELETE $B/v1/memories/$MEMORY_ID -H "$H"
curl -sf -o /dev/null -w '%{http_code}\n' -X DELETE $B/v1/sessions/$L -H "$H"
curl -sf -o /dev/null -w '%{http_code}\n' -X DELETE $B/v1/sessions/$S-recall -H "$H"
