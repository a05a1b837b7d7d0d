#!/usr/bin/env bash
# The Keel benchmark: Keel, Quarkus MCP, the official MCP Java SDK (session and stateless
# transports) and a minimal servlet, side by side on CPU 0 with the load driver on CPU 1, every scenario repeated
# with the servers measured in turn; then the clients, the database agent's own cost (H2, and a
# PostgreSQL it starts), and start-up and idle RSS; then docs/benchmarks.md is written from the
# medians. See keel-bench/README.md.
#
#   keel-bench/run.sh                 # the full run (about 60 minutes)
#   keel-bench/run.sh --quick         # a trial: shorter warm-up and runs (about 20 minutes)
#
# Options: --quick, --reps N, --warmup SECONDS (per server), --duration SECONDS (per run),
#   --java PATH (default: $KEEL_BENCH_JAVA, else the newest JDK 21+ in /usr/lib/jvm, else
#   $JAVA_HOME/bin/java, else java), --out FILE (default
#   docs/benchmarks.md), --note TEXT (printed at the top of the report), --no-build,
#   --idle-sessions N (default 10000), --cancels N (default 1000).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/keel-bench"

REPS=3 WARMUP=90 RUN_WARMUP=5 DURATION=15 MODE=full BUILD=1
IDLE_SESSIONS=10000 CANCELS=1000 NOTE="" OUT="$ROOT/docs/benchmarks.md"
# The JVM for servers and driver alike. Keel runs its handlers on virtual threads from JDK 21 on,
# as production would, so the newest JDK 21+ found wins unless --java or KEEL_BENCH_JAVA says.
JAVA="${KEEL_BENCH_JAVA:-}"
if [ -z "$JAVA" ]; then
  for candidate in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -V -r); do
    version="$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java.specification.version = //p')"
    if [ -n "$version" ] && [ "$version" -ge 21 ] 2>/dev/null; then JAVA="$candidate/bin/java"; break; fi
  done
fi
if [ -z "$JAVA" ] && [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA="$JAVA_HOME/bin/java"; fi
JAVA="${JAVA:-java}"
ARGS="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MODE=quick WARMUP=30 RUN_WARMUP=3 DURATION=5 ;;
    --reps) REPS="$2"; shift ;;
    --warmup) WARMUP="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --java) JAVA="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --note) NOTE="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --idle-sessions) IDLE_SESSIONS="$2"; shift ;;
    --cancels) CANCELS="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

echo "== JVM: $("$JAVA" -version 2>&1 | head -1) ($JAVA)"
if [ "$BUILD" = 1 ]; then
  echo "== building keel-bench (package, no tests, nothing installed)"
  (cd "$ROOT" && mvn -B -ntp -q -DskipTests -pl keel-bench -am package)
  echo "== building the Quarkus MCP peer (keel-bench/peers/quarkus-mcp)"
  mvn -B -ntp -q -DskipTests -f "$BENCH/peers/quarkus-mcp/pom.xml" package
  echo "== installing the TypeScript SDK clients (keel-bench/peers/ts-client, npm ci)"
  (cd "$BENCH/peers/ts-client" && npm ci --no-audit --no-fund >/dev/null)
fi
TS_DIR="$BENCH/peers/ts-client"
[ -x "$TS_DIR/node_modules/.bin/node" ] || { echo "run.sh: npm ci in $TS_DIR first" >&2; exit 1; }
QUARKUS_JAR="$BENCH/peers/quarkus-mcp/target/quarkus-app/quarkus-run.jar"
[ -f "$QUARKUS_JAR" ] || { echo "run.sh: build the Quarkus MCP peer first" >&2; exit 1; }
CP="$BENCH/target/keel-bench.jar:$BENCH/target/lib/*"
[ -f "$BENCH/target/keel-bench.jar" ] || { echo "run.sh: build keel-bench first" >&2; exit 1; }

# Each idle session holds a socket at each end; the server and the driver need room for 10,000+.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((IDLE_SESSIONS + 1000)) ]; then
  echo "run.sh: open-file limit $(ulimit -n) is below $((IDLE_SESSIONS + 1000)); idle capacity may fail" >&2
fi

SERVER_CPU=() DRIVER_CPU=() PINNING="none (fewer than 2 CPUs or no taskset)"
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_CPU=(taskset -c 0) DRIVER_CPU=(taskset -c 1)
  PINNING="server on CPU 0, driver on CPU 1 (taskset)"
fi
QUIET=(-Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
WORK="$(mktemp -d)"
RESULTS="$WORK/results.jsonl"
SERVER_PID=""
declare -A URLS PIDS

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
stop_all() {
  for kind in "${!PIDS[@]}"; do SERVER_PID="${PIDS[$kind]}"; stop_server; done
  PIDS=()
  stop_server
  stop_postgres
}

# start_postgres: a throwaway PostgreSQL in $WORK on a free loopback port, pinned to the
# server's CPU, for the agent's PostgreSQL rows; sets PG_URL. Returns 1 (the rows are left out)
# when no PostgreSQL is installed: apt-get install postgresql.
PG_AS=() PG_BIN="" PG_URL=""
start_postgres() {
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] || return 1
  mkdir -p "$WORK/pg"
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses root: the data belongs to the postgres user, who must reach $WORK
    chmod 755 "$WORK"; chown postgres "$WORK/pg"; PG_AS=(runuser -u postgres --)
  fi
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "${PG_AS[@]}" "$PG_BIN/initdb" -D "$WORK/pg/data" -U postgres --auth=trust -E UTF8 \
    --no-locale --no-sync >/dev/null || return 1
  "${SERVER_CPU[@]}" "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
    -o "-p $port -k $WORK/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
    || return 1
  PG_URL="jdbc:postgresql://127.0.0.1:$port/postgres"
}
stop_postgres() {
  if [ -n "$PG_URL" ]; then
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    PG_URL=""
  fi
}
trap 'stop_all; rm -rf "$WORK"' EXIT

# start_server KIND HEAP: starts a server pinned to CPU 0 and sets URL and SERVER_PID. Quarkus
# runs from its own jar and logs "Listening on: http://127.0.0.1:PORT"; its endpoint is /mcp.
start_server() {
  local log="$WORK/$1.log"
  if [ "$1" = quarkus ]; then
    "${SERVER_CPU[@]}" "$JAVA" "-Xmx$2" -jar "$QUARKUS_JAR" >"$log" 2>&1 &
  else
    "${SERVER_CPU[@]}" "$JAVA" "-Xmx$2" "${QUIET[@]}" -cp "$CP" dev.keel.bench.servers.BenchServer \
      "$1" --port 0 --max-sessions $((IDLE_SESSIONS + 5000)) >"$log" 2>&1 &
  fi
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    URL="$(grep -o 'http://[^ ]*' "$log" 2>/dev/null | head -1 || true)"
    if [ -n "$URL" ]; then
      [ "$1" = quarkus ] && URL="$URL/mcp"
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "run.sh: $1 did not start:" >&2
  cat "$log" >&2
  exit 1
}

# drive ARGS...: one driver run pinned to CPU 1.
drive() {
  "${DRIVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.driver.Driver \
    --url "$URL" --pid "$SERVER_PID" "$@"
}

# scenarios KIND: the scenarios a server runs, as "label scenario style conns".
scenarios() {
  case "$1" in
    keel|minimal|jetty-core|vertx)
      local stateless=modern ;;
    sdk-modern)
      echo "stateless64 echo modern 64"
      echo "sleep50 sleep modern 64"
      return ;;
    sdk-stateless)
      echo "stateless64 echo legacy-stateless 64"
      echo "sleep50 sleep legacy-stateless 64"
      return ;;
    sdk-session|quarkus)
      local stateless="" ;;
  esac
  echo "echo16 echo session 16"
  echo "echo64 echo session 64"
  if [ -n "$stateless" ]; then echo "stateless64 echo $stateless 64"; fi
  echo "sleep50 sleep session 64"
  echo "sessions sessions session 64"
}

# The seven servers run side by side on CPU 0 (only the one under load is busy) and every
# repetition measures each of them in turn, scenario by scenario, rotating who goes first: this
# machine drifts 10-40 % over minutes, and a ratio is only fair when both sides of it were
# measured in the same minute.
KINDS=(keel quarkus sdk-session sdk-stateless sdk-modern minimal jetty-core vertx)
LABELS=(echo16 echo64 stateless64 sleep50 sessions)
for KIND in "${KINDS[@]}"; do
  start_server "$KIND" 1g
  URLS[$KIND]="$URL" PIDS[$KIND]="$SERVER_PID"
done
SERVER_PID=""
for KIND in "${KINDS[@]}"; do
  URL="${URLS[$KIND]}" SERVER_PID="${PIDS[$KIND]}"
  mapfile -t PLAN < <(scenarios "$KIND")
  SLICE=$(( WARMUP / ${#PLAN[@]} )); [ "$SLICE" -ge 1 ] || SLICE=1
  echo "== $KIND: warm-up, ${WARMUP} s over ${#PLAN[@]} scenarios"
  for line in "${PLAN[@]}"; do
    read -r label scenario style conns <<<"$line"
    drive --scenario "$scenario" --style "$style" --conns "$conns" --warmup 0 \
      --duration "$SLICE" >/dev/null
  done
done
for rep in $(seq 1 "$REPS"); do
  echo "== repetition $rep of $REPS"
  for label in "${LABELS[@]}"; do
    for i in "${!KINDS[@]}"; do
      KIND="${KINDS[$(( (i + rep - 1) % ${#KINDS[@]} ))]}"
      line="$(scenarios "$KIND" | grep "^$label " || true)"
      [ -n "$line" ] || continue
      read -r _ scenario style conns <<<"$line"
      URL="${URLS[$KIND]}" SERVER_PID="${PIDS[$KIND]}"
      drive --server "$KIND" --label "$label" --rep "$rep" --scenario "$scenario" \
        --style "$style" --conns "$conns" --warmup "$RUN_WARMUP" --duration "$DURATION" \
        --out "$RESULTS"
    done
  done
done
SERVER_PID=""
stop_all

# The clients, each in a JVM (or, for the TypeScript SDK's, a Node process) of its own on the
# driver's CPU, against one Keel server on CPU 0, in turn and rotating who goes first, as the
# servers are.
CLIENTS=(keel-legacy sdk-legacy ts-legacy keel-modern sdk-modern ts-modern)
echo "== clients: ${CLIENTS[*]} against one Keel server, 1 and 64 caller threads"
start_server keel 1g
drive --scenario echo --style session --conns 16 --warmup 0 --duration "$(( WARMUP / 3 ))" >/dev/null
for rep in $(seq 1 "$REPS"); do
  for threads in 1 64; do
    for i in "${!CLIENTS[@]}"; do
      CLIENT="${CLIENTS[$(( (i + rep - 1) % ${#CLIENTS[@]} ))]}"
      "${DRIVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.driver.ClientBench \
        --url "$URL" --client "$CLIENT" --threads "$threads" --warmup "$(( RUN_WARMUP * 2 ))" \
        --duration "$DURATION" --label "client$threads" --rep "$rep" --ts-dir "$TS_DIR" \
        --out "$RESULTS" >/dev/null \
        || echo "   $CLIENT with $threads threads failed" >&2
    done
  done
done
stop_server

for KIND in keel sdk-session; do
  echo "== $KIND: idle capacity, $IDLE_SESSIONS sessions with listening streams, -Xmx256m"
  start_server "$KIND" 256m
  drive --scenario echo --conns 16 --warmup 0 --duration "$(( RUN_WARMUP * 2 ))" >/dev/null
  drive --server "$KIND" --label idle --scenario idle --sessions "$IDLE_SESSIONS" \
    --duration 5 --out "$RESULTS" || echo "   $KIND: idle capacity run failed" >&2
  stop_server
done

echo "== keel: cancellation latency over $CANCELS cancellations"
start_server keel-probe 1g
# On one core the JIT keeps compiling long after a short warm-up, and a compile slice of a few
# milliseconds is the tail. The probe server gets the same echo warm-up as the others (the
# shared HTTP and JSON paths), then 60 unmeasured cancellations per measured one on the very
# connections that are then measured, then 10 s idle for the compile queue to drain: by hand,
# 10,000 warm-up cancellations left p99 at 4-6 ms, 60,000 brought it under 1 ms.
drive --scenario echo --style session --conns 64 --warmup 0 --duration "$WARMUP" >/dev/null
drive --server keel-probe --label cancel --scenario cancel --warmup-cancels $(( CANCELS * 60 )) \
  --settle 10 --cancels "$CANCELS" --conns 4 --out "$RESULTS"
stop_server

# The agent's own cost: AgentBench in one JVM on the driver's CPU, H2 in that JVM, PostgreSQL
# on the server's CPU; each engine's line has both sizes and both paths (agent and plain JDBC).
echo "== the agent's own cost: query of 1 and 500 rows, on H2 and PostgreSQL, against plain JDBC"
AGENT=(--warmup "$(( RUN_WARMUP * 2 ))" --duration "$DURATION" --out "$RESULTS")
for rep in $(seq 1 "$REPS"); do
  "${DRIVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.driver.AgentBench \
    --engine h2 --rep "$rep" "${AGENT[@]}" >/dev/null || echo "   the agent on H2 failed" >&2
done
if start_postgres; then
  for rep in $(seq 1 "$REPS"); do
    "${DRIVER_CPU[@]}" "$JAVA" -Xmx1g "${QUIET[@]}" -cp "$CP" dev.keel.bench.driver.AgentBench \
      --engine postgresql --jdbc "$PG_URL" --user postgres --rep "$rep" "${AGENT[@]}" \
      >/dev/null || echo "   the agent on PostgreSQL failed" >&2
  done
  stop_postgres
else
  echo "   no PostgreSQL here (apt-get install postgresql): its rows are left out" >&2
fi

# Start-up to "listening on" and idle RSS, each process pinned to the server's CPU, in turn;
# then with class-data sharing, from an archive that an unmeasured first run wrote.
echo "== start-up and idle RSS: keel fixtures, keel agent, Quarkus MCP; then with AppCDS"
KEEL_JAR="$ROOT/keel-cli/target/keel.jar"
startup() {
  local label="$1"; shift
  "$JAVA" -cp "$CP" dev.keel.bench.driver.StartupBench --label "$label" --rep "$rep" \
    --idle 5 --out "$RESULTS" -- "${SERVER_CPU[@]}" "$JAVA" "$@" >/dev/null \
    || echo "   $label did not start" >&2
}
CDS_DIR="$WORK/cds"; mkdir -p "$CDS_DIR"
for rep in 0 $(seq 1 "$REPS"); do
  if [ "$rep" -gt 0 ]; then
    startup keel-fixtures -jar "$KEEL_JAR" fixtures --port 0
    startup keel-agent -jar "$KEEL_JAR" agent --port 0
    startup quarkus -jar "$QUARKUS_JAR"
  fi
  # rep 0 writes each archive and its result is dropped below
  CDS=(-XX:+AutoCreateSharedArchive)
  startup keel-fixtures-cds "${CDS[@]}" "-XX:SharedArchiveFile=$CDS_DIR/fixtures.jsa" \
    -jar "$KEEL_JAR" fixtures --port 0
  startup keel-agent-cds "${CDS[@]}" "-XX:SharedArchiveFile=$CDS_DIR/agent.jsa" \
    -jar "$KEEL_JAR" agent --port 0
  startup quarkus-cds "${CDS[@]}" "-XX:SharedArchiveFile=$CDS_DIR/quarkus.jsa" \
    -jar "$QUARKUS_JAR"
done
# the runs that wrote the archives do not count
grep -v '"scenario":"startup","rep":0' "$RESULTS" > "$RESULTS.kept" && mv "$RESULTS.kept" "$RESULTS"

mkdir -p "$(dirname "$OUT")"
REPORT=(--results "$RESULTS" --out "$OUT" --mode "$MODE" --warmup "$WARMUP"
  --duration "$DURATION" --reps "$REPS" --xmx 256m --pinning "$PINNING"
  --command "keel-bench/run.sh${ARGS:+ $ARGS}")
[ -n "$NOTE" ] && REPORT+=(--note "$NOTE")
"$JAVA" -cp "$CP" dev.keel.bench.report.BenchReport "${REPORT[@]}" >/dev/null
cp "$RESULTS" "${OUT%.md}.jsonl"
echo "== wrote $OUT (raw results: ${OUT%.md}.jsonl)"
