#!/usr/bin/env bash
# The cluster benchmark (issue 17): Keel in memory, one Keel node with its state in Redis, and
# three Redis nodes behind a round-robin HAProxy, measured in turn on legacy `echo` (64
# connections, a session each) and 2026-07-28 stateless `echo`; it also counts the Redis commands
# each call costs. Writes docs/benchmarks-cluster.md. Needs redis-server and haproxy (Debian:
# apt-get install redis-server haproxy).
#
#   keel-bench/run-cluster.sh            # about 8 minutes
#   keel-bench/run-cluster.sh --quick    # about 3 minutes
#
# Options: --quick, --reps N, --warmup SECONDS, --duration SECONDS, --java PATH, --out FILE,
#   --note TEXT, --no-build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/keel-bench"
REPS=3 WARMUP=60 RUN_WARMUP=5 DURATION=15 BUILD=1 NOTE="" OUT="$ROOT/docs/benchmarks-cluster.md"
JAVA="${KEEL_BENCH_JAVA:-}"
if [ -z "$JAVA" ]; then
  for candidate in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -V -r); do
    version="$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java.specification.version = //p')"
    if [ -n "$version" ] && [ "$version" -ge 21 ] 2>/dev/null; then JAVA="$candidate/bin/java"; break; fi
  done
fi
JAVA="${JAVA:-java}"
ARGS="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) WARMUP=20 RUN_WARMUP=2 DURATION=5 REPS=2 ;;
    --reps) REPS="$2"; shift ;;
    --warmup) WARMUP="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --java) JAVA="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --note) NOTE="$2"; shift ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "run-cluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in redis-server redis-cli haproxy; do
  command -v "$tool" >/dev/null || { echo "run-cluster.sh: $tool is missing (apt-get install redis-server haproxy)" >&2; exit 1; }
done
if [ "$BUILD" = 1 ]; then
  echo "== building keel-bench (package, no tests, nothing installed)"
  (cd "$ROOT" && mvn -B -ntp -q -DskipTests -pl keel-bench -am package)
fi
CP="$BENCH/target/keel-bench.jar:$BENCH/target/lib/*"
SERVER_CPU=() DRIVER_CPU=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_CPU=(taskset -c 0) DRIVER_CPU=(taskset -c 1)
fi
QUIET=(-Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
WORK="$(mktemp -d)"
RESULTS="$WORK/results.jsonl"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
REDIS_PORT="$(free_port)"
"${SERVER_CPU[@]}" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$WORK" --daemonize no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
REDIS="redis://127.0.0.1:$REDIS_PORT"

# start KIND NAME [ARGS...]: starts a bench server, records its URL and pid.
declare -A URLS SPIDS
start() {
  local kind="$1" name="$2"; shift 2
  "${SERVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.servers.BenchServer \
    "$kind" --port 0 "$@" >"$WORK/$name.log" 2>&1 &
  local pid=$!
  PIDS+=($pid)
  for _ in $(seq 1 600); do
    local url; url="$(grep -o 'http://[^ ]*' "$WORK/$name.log" 2>/dev/null | head -1 || true)"
    if [ -n "$url" ]; then URLS[$name]="$url" SPIDS[$name]=$pid; return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run-cluster.sh: $name did not start:" >&2; cat "$WORK/$name.log" >&2; exit 1
}
start keel keel
start keel-redis keel-redis --redis "$REDIS"
for n in 1 2 3; do start keel-redis "node$n" --redis "$REDIS"; done
LB_PORT="$(free_port)"
{
  echo "global"; echo "  maxconn 8192"
  echo "defaults"; echo "  mode http"; echo "  timeout connect 1s"; echo "  timeout client 1m"
  echo "  timeout server 1m"; echo "  timeout http-keep-alive 10s"
  echo "frontend mcp"; echo "  bind 127.0.0.1:$LB_PORT"; echo "  default_backend nodes"
  echo "backend nodes"; echo "  balance roundrobin"
  for n in 1 2 3; do
    hostport="$(echo "${URLS[node$n]}" | sed 's|http://||; s|/mcp||')"
    echo "  server node$n $hostport"
  done
} >"$WORK/haproxy.cfg"
"${DRIVER_CPU[@]}" haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
sleep 1
URLS[keel-cluster3]="http://127.0.0.1:$LB_PORT/mcp"
SPIDS[keel-cluster3]="${SPIDS[node1]}"

drive() {
  local name="$1"; shift
  "${DRIVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.driver.Driver \
    --url "${URLS[$name]}" --pid "${SPIDS[$name]}" "$@"
}
commands() { redis-cli -p "$REDIS_PORT" info stats | sed -n 's/^total_commands_processed:\([0-9]*\).*/\1/p'; }

NAMES=(keel keel-redis keel-cluster3)
PLAN=("echo64 session" "stateless64 modern")
echo "== warm-up, ${WARMUP} s per server"
for name in "${NAMES[@]}"; do
  for line in "${PLAN[@]}"; do
    read -r label style <<<"$line"
    drive "$name" --scenario echo --style "$style" --conns 64 --warmup 0 \
      --duration $(( WARMUP / ${#PLAN[@]} )) >/dev/null
  done
done
# what the nodes send Redis when nothing happens (heartbeats, renewals), per second
c0="$(commands)"; sleep 5; c1="$(commands)"
IDLE_PER_S="$(python3 -c "print(($c1 - $c0) / 5)")"
for rep in $(seq 1 "$REPS"); do
  echo "== repetition $rep of $REPS"
  for line in "${PLAN[@]}"; do
    read -r label style <<<"$line"
    for i in "${!NAMES[@]}"; do
      name="${NAMES[$(( (i + rep - 1) % ${#NAMES[@]} ))]}"
      drive "$name" --server "$name" --label "$label" --rep "$rep" --scenario echo \
        --style "$style" --conns 64 --warmup "$RUN_WARMUP" --duration "$DURATION" --out "$RESULTS"
      before="$(commands)"
      line_out="$(drive "$name" --scenario echo --style "$style" --conns 64 --warmup 0 \
        --duration 5 --out "$WORK/count.jsonl")"
      after="$(commands)"
      ok="$(tail -1 "$WORK/count.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ok"])')"
      python3 -c "
import json
per = max(0.0, ($after - $before - $IDLE_PER_S * 5) / max(1, $ok))
print(json.dumps({'server': '$name', 'scenario': '$label-redis', 'rep': $rep, 'redisCommandsPerCall': round(per, 3)}))" >>"$RESULTS"
    done
  done
done
REPORT=(--results "$RESULTS" --out "$OUT" --command "keel-bench/run-cluster.sh${ARGS:+ $ARGS}")
[ -n "$NOTE" ] && REPORT+=(--note "$NOTE")
"$JAVA" -cp "$CP" dev.keel.bench.report.ClusterReport "${REPORT[@]}" >/dev/null
cp "$RESULTS" "${OUT%.md}.jsonl"
echo "== wrote $OUT (raw results: ${OUT%.md}.jsonl)"
