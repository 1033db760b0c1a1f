#!/usr/bin/env bash
# Hand-written semantic mutants of the Lua scripts and of the Java client, scored against the
# fast property suite.
#
# PIT mutates bytecode only; the lease logic that runs on the server is in
# impl/src/main/resources/dev/leasehold/redis/*.lua, which the simulated Redis of the property
# suite runs through LuaJ. PIT's operators are small (a negated condition, a removed call); the
# Java mutants here are realistic bugs of the client (a budget measured from the reply, a
# renew that revives a LOST handle, ...). This script applies one edit at a time to a copy of the source tree,
# runs SimulatedLeasePropertiesUnitTests, ReplayChainUnitTests and ConcurrentChainsUnitTests
# there, and records killed (a test failed) or survived (all passed). The working tree is never
# edited: every change happens in a temporary copy, removed on exit, Ctrl-C or failure.
#
# Usage (from anywhere in the repository):
#   model-tests/mutants/semantic-mutants.sh              all mutants
#   ONLY=release-no-owner-check,acquire-no-expiry model-tests/mutants/semantic-mutants.sh
#   MVN="flock /tmp/some.lock mvn" model-tests/mutants/semantic-mutants.sh   (serialise with other builds)
# A mutant's file is a script name (under impl's resources) or a path from the repository root.
# Report: model-tests/target/semantic-mutants/report.md (and one Maven log per run beside it).
# Exit status: 0 when every run gave a verdict (survivors do not fail the script: the score is a
# measurement), 1 when a run could not be judged (build error, stale resource) or an edit is stale.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LUA_DIR="impl/src/main/resources/dev/leasehold/redis"
OUT="$ROOT/model-tests/target/semantic-mutants"
MVN="${MVN:-mvn}"
ONLY="${ONLY:-}"
TESTS="SimulatedLeasePropertiesUnitTests,ReplayChainUnitTests,ConcurrentChainsUnitTests"
# A script name, or a path from the repository root for the Java mutants.
path_of() { if [[ "$1" == */* ]]; then echo "$1"; else echo "$LUA_DIR/$1"; fi; }

# ---------------------------------------------------------------------------------------------
# The mutants. Each: name, script file, the exact original text (must occur exactly once in
# the file, or the script stops before running anything: a list that went stale must not pass
# silently), the replacement, and what the edit means.
NAMES=(); FILES=(); ORIGS=(); REPLS=(); WHATS=()
mutant() {
  NAMES+=("$1"); FILES+=("$2"); ORIGS+=("$3"); REPLS+=("$4"); WHATS+=("$5")
}

mutant acquire-replay-extends-ttl acquire.lua \
  "  return {2, tonumber(counter or '0') or 0, pttl}" \
  "  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {2, tonumber(counter or '0') or 0, redis.call('PTTL', KEYS[1])}" \
  "a replay re-arms the lease with its own TTL (a late replay outlives the lease)"

mutant acquire-no-clock-floor acquire.lua \
  "    token = math.max(token, tonumber(now[1]) * 1000000 + tonumber(now[2]))" \
  "    token = math.max(token, 0 * tonumber(now[1]))" \
  "clock fence mode never raises the token to the server clock (a restart re-issues tokens)"

mutant acquire-token-not-incremented acquire.lua \
  "  local token = tonumber(counter or '0') + 1" \
  "  local token = tonumber(counter or '0')" \
  "a grant reuses the current fencing counter instead of incrementing it"

mutant acquire-no-expiry acquire.lua \
  "if raisable and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then" \
  "if raisable and redis.call('SET', KEYS[1], ARGV[1], 'NX') then" \
  "a grant sets the key without a TTL"

mutant acquire-replay-pttl-plus-one acquire.lua \
  "  return {2, tonumber(counter or '0') or 0, pttl}" \
  "  return {2, tonumber(counter or '0') or 0, pttl + 1}" \
  "a replay reports 1 ms more than the server's PTTL"

mutant acquire-owner-prefix-is-replay acquire.lua \
  "if holder == ARGV[1] then" \
  "if type(holder) == 'string' and string.sub(holder, 1, #ARGV[2]) == ARGV[2] then" \
  "inheritance: another attempt of the same owner token is answered as a replay of this one"

mutant acquire-same-owner-never-flagged acquire.lua \
  "  sameOwner = 1" \
  "  sameOwner = 0" \
  "a key held by another attempt of the same owner token is reported as a stranger's"

mutant acquire-wrongtype-is-error acquire.lua \
  "if type(holder) == 'table' and not string.find(holder['err'], '^WRONGTYPE') then" \
  "if type(holder) == 'table' then" \
  "a non-string value at the lease key answers GET's WRONGTYPE error instead of 'held by another'"

mutant renew-no-owner-check renew.lua \
  "if holder ~= ARGV[1] then
  return -1
end" \
  "" \
  "renew extends whatever string holds the key"

mutant renew-owner-prefix renew.lua \
  "if holder ~= ARGV[1] then" \
  "local prefix = string.match(ARGV[1], '^(.*:)')
if string.sub(holder, 1, #prefix) ~= prefix then" \
  "inheritance: renew extends any attempt of the same owner token"

mutant renew-pexpire-minus-one renew.lua \
  "redis.call('PEXPIRE', KEYS[1], ARGV[2])" \
  "redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) - 1)" \
  "renew sets a TTL 1 ms shorter than asked"

mutant renew-absent-says-other renew.lua \
  "if not holder then
  return 0" \
  "if not holder then
  return -1" \
  "renew of an absent key replies 'another value' (-1) instead of 'absent' (0)"

mutant release-no-owner-check release.lua \
  "if holder ~= ARGV[1] then
  return -1
end" \
  "" \
  "release deletes whatever string holds the key"

mutant release-owner-prefix release.lua \
  "if holder ~= ARGV[1] then" \
  "local prefix = string.match(ARGV[1], '^(.*:)')
if string.sub(holder, 1, #prefix) ~= prefix then" \
  "inheritance: release deletes any attempt of the same owner token"

mutant release-absent-says-deleted release.lua \
  "if not holder then
  return 0" \
  "if not holder then
  return 1" \
  "release of an absent key replies 'deleted' (1) instead of 'absent' (0)"

mutant release-no-publish release.lua \
  "redis.call('PUBLISH', KEYS[1] .. ':released', '1')" \
  "" \
  "release does not publish the wake-up for waiters"

mutant inspect-mine-ignores-owner inspect.lua \
  "if holder == ARGV[1] then" \
  "if type(holder) == 'string' then" \
  "inspect says 'this attempt' for any string value"

mutant inspect-pttl-plus-one inspect.lua \
  "return {1, mine, redis.call('PTTL', KEYS[1])," \
  "return {1, mine, redis.call('PTTL', KEYS[1]) + 1," \
  "inspect reports 1 ms more than the server's PTTL"

# The Java client: realistic bugs, which the fast property suite must kill.
H=impl/src/main/java/dev/leasehold/redis/RedisLeaseHandle.java
mutant java-budget-from-reply "$H" \
  "          case APPLIED -> renewed(flight, start, wallStart, ttlMs);" \
  "          case APPLIED -> renewed(flight, now(), wallStart, ttlMs);" \
  "a renew's new budget is measured from its reply, not from before its send"

mutant java-renew-revives-lost "$H" \
  "    Belief after = update(b -> b.state().isLive() ? granted(flight, start, wallStart, ttlMs) : b);" \
  "    Belief after = update(b -> b.state() != LeaseState.RELEASED ? granted(flight, start, wallStart, ttlMs) : b);" \
  "a renew reply brings back a handle whose budget ran out while the renew was in flight"

mutant java-ledger-cap-removed impl/src/main/java/dev/leasehold/redis/AttemptLedger.java \
  "      f.capMs = Math.min(f.capMs, ttlMs);" \
  "      // no cap" \
  "a renew in flight no longer caps the budget of the attempt's other flights (a replay's new grant)"

mutant java-cadence-ignores-validity impl/src/main/java/dev/leasehold/lease/RenewCadence.java \
  "    return Math.max(LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos(), Math.min(regular, safe));" \
  "    return Math.max(LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos(), regular);" \
  "the watchdog renews every ttl/3 whatever is left of the handle's validity"

mutant java-withlease-completed-after-loss impl/src/main/java/dev/leasehold/lease/LeaseRunner.java \
  "    if (atEnd != LeaseState.ACTIVE) {" \
  "    if (false) {" \
  "withLease returns Completed after a loss the watchdog had not seen yet"

# The watchdog's loss reports, what withLease leaves on the server, a lasting refusal, and
# lettuce's error mapping (which the chains reach through the fault gateway).
mutant java-watchdog-silent-on-indeterminate impl/src/main/java/dev/leasehold/lease/LeaseWatch.java \
  '        report(now == LeaseState.ACTIVE ? LeaseState.UNKNOWN : now, "renewal unanswered: " + i.reason());' \
  '        schedule(RenewCadence.retry(ttl, handle.remainingValidity(), null));' \
  "the watchdog keeps renewing after its renew went unanswered instead of reporting the loss"

mutant java-withlease-replay-hides-indeterminate impl/src/main/java/dev/leasehold/lease/LeaseRunner.java \
  "      if (!(replay instanceof AcquireOutcome.Unavailable || replay instanceof AcquireOutcome.Overloaded)) {" \
  "      if (true) {" \
  "withLease returns the replay's Unavailable after an Indeterminate try that may hold the lease"

mutant java-withlease-drops-replayed-lease impl/src/main/java/dev/leasehold/lease/LeaseRunner.java \
  "      return r.handle().state() == LeaseState.ACTIVE ? r.handle() : null;" \
  "      return null;" \
  "withLease neither uses nor releases the lease its replay found held"

mutant java-release-refusal-indeterminate "$H" \
  "      case NOT_SENT, REFUSED -> new ReleaseOutcome.Unavailable(e.getMessage());" \
  "      case NOT_SENT -> new ReleaseOutcome.Unavailable(e.getMessage());
      case REFUSED -> settle(LeaseState.UNKNOWN, new ReleaseOutcome.Indeterminate(e.getMessage()));" \
  "a release the server refused (NOPERM, READONLY) is reported Indeterminate and leaves the handle UNKNOWN"

F=impl/src/main/java/dev/leasehold/redis/LettuceFailures.java
mutant java-timeout-taken-for-not-sent "$F" \
  '      return new GatewayException(Failure.AMBIGUOUS, "no reply in time: " + message, e);' \
  '      return new GatewayException(Failure.NOT_SENT, "no reply in time: " + message, e);' \
  "a command timeout is taken for a command never sent"

mutant java-connection-closed-taken-for-not-sent "$F" \
  '      List.of("Currently not connected. Commands are rejected.", "Connection is closed");' \
  '      List.of("Currently not connected. Commands are rejected.", "Connection is closed", "Connection closed");' \
  "lettuce's 'Connection closed' (commands already written when the connection dropped) is taken for 'not sent'"

# ---------------------------------------------------------------------------------------------

die() { echo "semantic-mutants: $*" >&2; exit 1; }

# Reads a file whole into TEXT, trailing newlines included (a bare command substitution would
# drop them, and the copy would differ from the original by more than the edit).
slurp() { local s; s="$(cat -- "$1"; printf x)"; TEXT="${s%x}"; }

# Prints the text of $1 with the single occurrence of $2 replaced by $3; fails unless $2 occurs
# exactly once. Bash's quoted ${var/"pat"/"rep"} is a literal, not a glob, replacement.
edit_text() {
  local text="$1" orig="$2" repl="$3" rest
  [[ "$text" == *"$orig"* ]] || return 2
  rest="${text#*"$orig"}"
  [[ "$rest" == *"$orig"* ]] && return 3
  printf '%s' "${text/"$orig"/"$repl"}"
}

selected() { [[ -z "$ONLY" ]] || [[ ",$ONLY," == *",$1,"* ]]; }

cd "$ROOT"
[[ -d "$LUA_DIR" ]] || die "no $LUA_DIR under $ROOT"

# Check every edit against the pristine scripts before any build.
declare -A seen=()
for i in "${!NAMES[@]}"; do
  n="${NAMES[$i]}"
  [[ -z "${seen[$n]:-}" ]] || die "duplicate mutant name $n"
  seen[$n]=1
  f="$(path_of "${FILES[$i]}")"
  [[ -f "$f" ]] || die "$n: no file $f"
  slurp "$f"
  rc=0; edit_text "$TEXT" "${ORIGS[$i]}" "${REPLS[$i]}" >/dev/null || rc=$?
  case $rc in
    0) ;;
    2) die "$n: the original text is not in $f (the script changed: update or drop this mutant)" ;;
    3) die "$n: the original text occurs more than once in $f (make it unique)" ;;
    *) die "$n: edit failed ($rc)" ;;
  esac
done
if [[ -n "$ONLY" ]]; then
  IFS=, read -r -a wanted <<< "$ONLY"
  for w in "${wanted[@]}"; do [[ -n "${seen[$w]:-}" ]] || die "ONLY names an unknown mutant: $w"; done
fi

# The copy: tracked and untracked-but-not-ignored files, without build output or .git, so the
# run sees exactly the sources of this tree.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/semantic-mutants.XXXXXX")"
cleanup() { rm -rf -- "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
git -C "$ROOT" ls-files -z --cached --others --exclude-standard \
  | tar -C "$ROOT" --null -T - -cf - | tar -xf - -C "$WORK"

rm -rf -- "$OUT"
mkdir -p "$OUT"

# Runs the fast property suite in the copy. Prints "survived", "error", or "killed" and, after a
# tab, how many tests failed, the properties they name and the first failure's message.
run_suite() {
  local log="$1" rc=0 reports="$WORK/model-tests/target/surefire-reports"
  rm -rf -- "$reports"
  (cd "$WORK" && $MVN -B -ntp -pl model-tests -am test -Dtest="$TESTS" \
    -Dsurefire.failIfNoSpecifiedTests=false) > "$log" 2>&1 || rc=$?
  # Surefire's summary at the end of the log: "[ERROR] Failures:" / "[ERROR] Errors:", then one
  # "[ERROR]   Class.method:line message" line per failing test (a PropertyViolation's message
  # starts with the property's name, after "PROPERTY FAILED: " when the runner shrank it).
  local failed
  failed="$(awk '
    /^\[ERROR\] (Failures|Errors): *$/ { on = 1; next }
    /^\[ERROR\] Tests run:/ { on = 0 }
    on && /^\[ERROR\]   [A-Za-z]/ {
      sub(/^\[ERROR\]   /, ""); test = $1; msg = substr($0, length($1) + 2)
      sub(/^PROPERTY FAILED: /, "", msg)
      prop = (match(msg, /^[A-Z][A-Za-z]+: /) ? substr(msg, 1, RLENGTH - 2) : "other assertion")
      n++; if (!(prop in seen)) { seen[prop] = 1; props = props (props == "" ? "" : ", ") prop }
      if (first == "") first = test " " substr(msg, 1, 140)
    }
    END { if (n > 0) printf "%d failing (%s); first: %s", n, props, first }' "$log")"
  if [[ $rc -eq 0 ]]; then
    # A pass must have run the suite: no reports means nothing was tested.
    compgen -G "$reports/TEST-*.xml" > /dev/null || { echo "error"; return; }
    echo "survived"
  elif [[ -n "$failed" ]]; then
    failed="${failed//|/\\|}"
    printf 'killed\t%s\n' "$failed"
  else
    echo "error"  # Maven failed without a failing test: compile error, resolution, ...
  fi
}

echo "semantic-mutants: baseline run of the unmutated scripts"
base="$(run_suite "$OUT/baseline.log")"
[[ "$base" == survived ]] || die "the unmutated suite does not pass ($base); see $OUT/baseline.log"

rows=(); killed=0; survived=0; errors=0; total=0
for i in "${!NAMES[@]}"; do
  n="${NAMES[$i]}"
  selected "$n" || continue
  total=$((total + 1))
  src="$WORK/$(path_of "${FILES[$i]}")"
  pristine="$ROOT/$(path_of "${FILES[$i]}")"
  slurp "$pristine"
  edit_text "$TEXT" "${ORIGS[$i]}" "${REPLS[$i]}" > "$src"
  ! cmp -s "$src" "$pristine" || die "$n: the edit changed nothing"
  echo "semantic-mutants: [$total] $n"
  verdict="$(run_suite "$OUT/$n.log")"
  # The suite must have run the mutated script: the copied resource is what LuaJ loads.
  if [[ "${FILES[$i]}" != */* ]]; then
    cmp -s "$src" "$WORK/impl/target/classes/dev/leasehold/redis/${FILES[$i]}" || verdict="error"
  fi
  cp -- "$pristine" "$src"
  cmp -s "$src" "$pristine" || die "$n: could not restore ${FILES[$i]} in the copy"
  status="${verdict%%$'\t'*}"
  detail=""; [[ "$verdict" == *$'\t'* ]] && detail="${verdict#*$'\t'}"
  case "$status" in
    killed) killed=$((killed + 1)) ;;
    survived) survived=$((survived + 1)) ;;
    *) errors=$((errors + 1)); detail="see $n.log" ;;
  esac
  echo "semantic-mutants:     $status"
  rows+=("| \`$n\` | ${FILES[$i]} | ${WHATS[$i]} | **$status** | $detail |")
done

{
  echo "# Semantic mutants (Lua scripts, Java client) against the fast property suite"
  echo
  echo "Suite: $TESTS (model-tests, simulated Redis running the scripts through LuaJ)."
  echo "Source: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- "$LUA_DIR" || echo ' (scripts modified in the working tree)')."
  echo
  echo "**$killed of $total killed**, $survived survived, $errors not judged."
  echo
  echo "| mutant | script | edit | verdict | failing tests (properties named; first failure) |"
  echo "| --- | --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} > "$OUT/report.md"
echo "semantic-mutants: $killed of $total killed, $survived survived, $errors not judged; $OUT/report.md"
[[ $errors -eq 0 ]]
