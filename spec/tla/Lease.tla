------------------------------- MODULE Lease -------------------------------
(***************************************************************************)
(* The Leasehold lease protocol for ONE resource (one lease key and one    *)
(* fencing counter in one Redis slot) and several attempts.  An attempt is *)
(* one owner token bound to one operation id (RedisLeaseAdapter.newAttempt); *)
(* its Redis value is ownerToken:operationId.                              *)
(*                                                                         *)
(* One resource loses nothing: the adapter keeps a handle, its ledger of   *)
(* requests in flight and its identity per pair (attempt, lease key), so   *)
(* one attempt used for two resources is two independent copies of this    *)
(* module (the scripts of one key never read another key).  Attempt here   *)
(* stands for that pair.                                                   *)
(*                                                                         *)
(* What is modelled:                                                       *)
(*  - a discrete server clock `now` with Redis's key expiry (a key is      *)
(*    gone once now > expiry: at now = expiry it is still there with PTTL  *)
(*    0, which the client treats as no budget left);                       *)
(*  - the four Lua scripts acquire.lua, renew.lua, release.lua, inspect.lua *)
(*    as atomic server actions;                                            *)
(*  - each client call as send -> (apply | refuse) -> (reply | lost reply) *)
(*    -> outcome, where the client may give up (Indeterminate) and the     *)
(*    request may still be applied afterwards (a delayed request);         *)
(*  - several client threads (Lane) using one attempt at once: the         *)
(*    watchdog renews while the application replays the attempt or         *)
(*    releases the handle.  A renew and a release of one handle are        *)
(*    serialized by its lock (RedisLeaseHandle.requests); a tryAcquire is  *)
(*    not, so a replay may overlap them in every interleaving;             *)
(*  - the client's handle: stored state, local deadline on the client's    *)
(*    monotonic clock measured from before the send, fencing token, and    *)
(*    the per-attempt ledger (AttemptLedger): the renew TTLs and releases  *)
(*    in flight, and those left ambiguous;                                 *)
(*  - a client clock that may fall behind the server clock by at most      *)
(*    Drift ticks (it never runs ahead: running ahead is only safer);      *)
(*  - a fenced effect store (FencedStore.write in the chaos module) and    *)
(*    a paused client that writes to it on stale belief;                   *)
(*  - a failover (promotes the last replicated state) and a restart (an    *)
(*    empty server), both of which lose recent writes, with the three      *)
(*    durability modes of the fencing counter;                             *)
(*  - the fencing counter's expiry: under ClockFloor the counter lives     *)
(*    Retention ticks longer than the lease key (ACQUIRE and RENEW set     *)
(*    both), so a resource nobody holds leaves no key for long.            *)
(*                                                                         *)
(* This module is the contract: it has no checking bounds and no defects.  *)
(* The MC*.tla modules model-check it: MCBase.tla bounds the state space,  *)
(* and each MC<Defect>.tla shows a counterexample by overriding, in its    *)
(* .cfg, one or two of the operators below that a defective adapter gets   *)
(* wrong, with a version defined in its module or in Breakers.tla, whose   *)
(* defects also show that each property of a passing configuration can     *)
(* fail there.                                                             *)
(*                                                                         *)
(* What is omitted: how long the wait loop sleeps (a retry is a Replay,    *)
(* fair while a wait lasts), the byte format of keys and tokens, and a     *)
(* client clock running fast.  An attempt has one handle at a time here: a *)
(* grant that opens a new handle replaces the old one (RedisLeaseAdapter   *)
(* supersedes it: LOST), and the old handle's renew or release still in    *)
(* flight becomes `stale`: it still counts in the ledger and still runs on *)
(* the server, but its reply changes no handle.  Calls that are rejected   *)
(* before any I/O (TTL <= drift, connection known down -> Unavailable) and *)
(* calls on a LOST/RELEASED handle (NotActive, nothing sent) change        *)
(* nothing, so they are stuttering steps and do not appear.                *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Attempt,       \* The attempts (model values); each is ownerToken:operationId.
    Owner,         \* The owner tokens (model values).
    OwnerOf,       \* OwnerOf[a] is the owner token of attempt a.
    None,          \* A model value that is not an attempt: "the key is absent".
    Lane,          \* The client threads that may call on one attempt at once (model values).
    Ttl,           \* The TTLs, in ticks, that a caller may ask for in tryAcquire/renew.
    Drift,         \* The drift budget in ticks (LeaseRequest/adapter driftBudget).
    TokensPerTick, \* ClockFloor's scale: one tick of the server clock is TokensPerTick microseconds.
    Faults,        \* The faults that may happen, a subset of FaultNames.
    Durability,    \* How the fencing counter survives failover: "Plain", "ClockFloor" or "ReplicaAck".
    Retention      \* Under ClockFloor, how many ticks the fencing counter outlives the lease key.

(***************************************************************************)
(* The names of the faults.                                                *)
(***************************************************************************)
FaultNames ==
    { "LoseReply",   \* a reply is lost after the script ran (LoseReply)
      "Delay",       \* a request is still in flight when the client gives up, and is applied later
      "Refuse",      \* the server refuses a request before running it (BUSY, LOADING, ...)
      "Pause",       \* a paused client writes to the fenced store on stale belief (Effect)
      "Failover",    \* a replica with an older state is promoted (Replicate, Failover)
      "Restart" }    \* the server restarts empty (Restart)

Durabilities == {"Plain", "ClockFloor", "ReplicaAck"}   \* The durability modes of the fencing counter.

(***************************************************************************)
(* ClockFloor issues token = max(counter + 1, serverTime), with the server *)
(* time in microseconds: one tick of `now` is TokensPerTick of them.  This *)
(* encodes the real-world assumptions exactly: at most one grant per       *)
(* microsecond, the server clock does not go back across a failover, a    *)
(* restart or the counter's expiry, and a failover or restart takes at     *)
(* least one tick.  The first one is a bound on behaviours, which an      *)
(* ASSUME cannot state: tokens stay unique across a failover (or the       *)
(* counter's expiry) only if every tick has fewer grants than              *)
(* TokensPerTick (a tick's tokens start at now * TokensPerTick, and those  *)
(* of tick 0 at 1).  This module does not bound grants per tick, so a      *)
(* model must (MCBase: fewer grants in all than TokensPerTick).            *)
(***************************************************************************)
ASSUME /\ \A a \in Attempt : OwnerOf[a] \in Owner
       /\ None \notin Attempt
       /\ Lane # {}
       /\ Ttl \subseteq Nat \ {0} /\ Ttl # {}
       /\ Drift \in Nat
       /\ TokensPerTick \in Nat \ {0}
       /\ Faults \subseteq FaultNames
       /\ Durability \in Durabilities
       /\ Retention \in Nat

Min(x, y) == IF x <= y THEN x ELSE y   \* The smaller of two integers.
Max(x, y) == IF x >= y THEN x ELSE y   \* The larger of two integers.

MaxTtl == CHOOSE t \in Ttl : \A u \in Ttl : u <= t  \* The longest TTL a caller may ask for.
NoPending == MaxTtl + 1     \* Stands for +infinity in a renew cap: no renew to allow for.
SetMin(S) == IF S = {} THEN NoPending ELSE CHOOSE x \in S : \A y \in S : x <= y
                            \* The smallest TTL in S, NoPending for none.

(* Tokens matter only to the fenced store, i.e. when clients may write     *)
(* effects (Pause), and to WAIT (ReplicaAck).  Otherwise the counter, the  *)
(* tokens and the grant ids stay 0: nothing reads them, and under          *)
(* ClockFloor their values (the grant's tick) would multiply the states.   *)
TrackTokens == "Pause" \in Faults \/ Durability = "ReplicaAck"   \* Whether tokens are tracked.
Tracked(x) == IF TrackTokens THEN x ELSE 0                       \* Token or grant id x, if tracked.

(* The ghost acquireUnsure matters only to NoLeaseLeftBehind, which a      *)
(* failover or a restart breaks by nature (an older copy of a key comes    *)
(* back, or a key is gone): with them it stays FALSE, which keeps the      *)
(* state space small.                                                      *)
TrackUnsure == Faults \cap {"Failover", "Restart"} = {}   \* Whether acquireUnsure is tracked.

HandleStates == {"NONE", "ACTIVE", "UNKNOWN", "LOST", "RELEASED"}  \* "NONE": no handle yet
Live == {"ACTIVE", "UNKNOWN"}                                        \* states that may still send
Terminal == {"LOST", "RELEASED"}                                     \* states that never change again
Kinds == {"acquire", "renew", "release"}                             \* the mutating scripts

NoReply == [status |-> 0, pttl |-> 0, token |-> 0, grant |-> 0, same |-> FALSE, holder |-> None]
                            \* The reply field of a call whose reply has not come yet.
NoCall == [kind |-> "none", ttl |-> 0, start |-> 0, phase |-> "idle", reply |-> NoReply,
           cap |-> NoPending, releaseSeen |-> FALSE, stale |-> FALSE]
                            \* A lane with no outstanding call.
Empty == [holder |-> None, expiry |-> 0, fence |-> 0, fenceExpiry |-> 0, grant |-> 0]
                            \* A server with neither the lease key nor the fencing counter.

(***************************************************************************)
(* Whether the fencing counter expires: under ClockFloor it does, since a  *)
(* token is floored by the server clock and needs no memory of the last    *)
(* one once the clock has passed it (the counter outlives the key by       *)
(* Retention ticks, so it is never gone while the key is there).  Under    *)
(* Plain and ReplicaAck the counter is the only memory of the tokens       *)
(* issued, and it never expires.                                           *)
(***************************************************************************)
CounterExpires == Durability = "ClockFloor"

(* The counter's expiry when the key's is e: Retention ticks later where   *)
(* it expires, else 0 (none).  Kept 0 where tokens are not tracked: the    *)
(* counter then stays 0 and nothing reads it.                              *)
CounterExpiry(e) == IF CounterExpires /\ TrackTokens THEN e + Retention ELSE 0

-----------------------------------------------------------------------------
VARIABLES
    now,               \* The server clock, in ticks.
    lag,               \* How far the client's monotonic clock is behind the server clock (0..Drift, never decreasing).
    srv,               \* The server: [holder, expiry, fence, fenceExpiry, grant]; grant is a ghost (the grant id of the key).
    replica,           \* The last replicated copy of srv: what a Failover promotes.
    call,              \* call[a][l]: the outstanding call of attempt a on lane l (NoCall if none).
    sent,              \* sent[a]: a tryAcquire of a was sent before, so the next send is a Replay.
    hs,                \* hs[a]: the stored state of a's handle (RedisLeaseHandle.Belief.state); "NONE" before one exists.
    dl,                \* dl[a]: the handle's local deadline on the client's monotonic clock.
    tok,               \* tok[a]: the handle's fencing token (RedisLeaseHandle.fencingToken).
    hgrant,            \* Ghost: hgrant[a] is the grant id behind a's handle.
    hfrom,             \* Ghost: hfrom[a] is the attempt whose value the script that made a's handle found or wrote.
    ambiguousRenewCap, \* The smallest TTL of a's ambiguous renews (AttemptLedger.ambiguousRenewCapMs; NoPending = none).
    ambiguousRelease,  \* An ambiguous release of a may still delete its lease (AttemptLedger.ambiguousRelease).
    seen,              \* Ghost: seen[a] is the terminal state that was last reported to the caller of a's handle, or "NONE".
    acquireUnsure,     \* Ghost: a's caller was told a's key may exist with no handle (an acquire ended Indeterminate since the last answered one, or one is still delayed).
    delayed,           \* The requests whose client gave up but that may still reach the server.
    storeHigh,         \* The fenced effect store: the highest token it accepted (0 at first).
    storeLast,         \* Ghost: the grant id behind the last write the store accepted.
    storeMax,          \* Ghost: the highest grant id behind any write the store accepted.
    grants,            \* Ghost: how many grants ACQUIRE made so far (= the id of the latest grant).
    calls              \* Ghost: how many calls the clients sent so far (what a model bounds to stay finite).

(* Tuples of variables, for UNCHANGED and for the step formulas.           *)
vars == <<now, lag, srv, replica, call, sent, hs, dl, tok, hgrant, hfrom, ambiguousRenewCap, ambiguousRelease,
          seen, acquireUnsure, delayed, storeHigh, storeLast, storeMax, grants, calls>>   \* All variables.
handleVars == <<hs, dl, tok, hgrant, hfrom, ambiguousRenewCap, ambiguousRelease, seen, acquireUnsure>>
                       \* The handle, its ledger, and what the attempt's caller was told.
storeVars == <<storeHigh, storeLast, storeMax>>                                        \* The fenced effect store.

cnow == now - lag      \* The client's monotonic clock (System.nanoTime in Java).

(***************************************************************************)
(* The handle's own request in flight.  A renew and a release of one       *)
(* handle hold its lock, so at most one lane has one (a stale request of   *)
(* a replaced handle does not hold the new handle's lock).                 *)
(***************************************************************************)
OwnCall(a, l) == call[a][l].kind \in {"renew", "release"} /\ ~call[a][l].stale
                                     \* The call on a's lane l is the handle's own renew or release.
Locked(a) == \E l \in Lane : OwnCall(a, l)        \* a's handle holds its lock (RedisLeaseHandle.requests).
OwnInFlight(a, k) == \E l \in Lane : OwnCall(a, l) /\ call[a][l].kind = k
                                     \* The handle's own request in flight is of kind k.

(***************************************************************************)
(* The ledger (AttemptLedger) of attempt a: its requests in flight, every  *)
(* lane's, stale ones included, since a stale request still runs on the    *)
(* server against this attempt's value; the ones left ambiguous            *)
(* (ambiguousRenewCap, ambiguousRelease); and the flight window of each    *)
(* acquire or renew (the call fields cap and releaseSeen:                  *)
(* AttemptLedger.Flight).                                                  *)
(***************************************************************************)
RenewTtlsInFlight(a, ls) == {call[a][l].ttl : l \in {m \in ls : call[a][m].kind = "renew"}}
                                     \* The TTLs of a's renews in flight on the lanes ls.
ReleaseInFlight(a, ls) == \E l \in ls : call[a][l].kind = "release"
                                     \* A release of a is in flight on one of the lanes ls.

(* The longest budget any success of a may get now: the smallest TTL of    *)
(* its renews in flight or ambiguous, since any of them may still run      *)
(* after the success's script and shorten the lease                        *)
(* (AttemptLedger.renewCapMs).                                             *)
RenewCap(a) == Min(ambiguousRenewCap[a], SetMin(RenewTtlsInFlight(a, Lane)))

(* The longest budget the success of the call on a's lane l may get: also  *)
(* capped by every renew of a in flight at any time during its flight      *)
(* (AttemptLedger.budgetCapMs(Flight)), since a reply may land after the   *)
(* reply of a renew that ran after its script.                             *)
BudgetCap(a, l) == Min(call[a][l].cap, RenewCap(a))

(* Whether a release of a may have deleted the lease after the script of   *)
(* the call on a's lane l ran, or may still delete it: one was in flight   *)
(* at any time during its flight, or is in flight or ambiguous now         *)
(* (AttemptLedger.releaseMayDelete(Flight)).  For an idle lane, whose      *)
(* window is empty, this is AttemptLedger.releaseMayDelete().              *)
ReleaseMayDelete(a, l) == call[a][l].releaseSeen \/ ambiguousRelease[a] \/ ReleaseInFlight(a, Lane)

(***************************************************************************)
(* The local deadline the handle relies on now.  A renew's effect may      *)
(* begin as soon as it is sent (it may shorten the lease), so while the    *)
(* handle's renew(ttl) is in flight the deadline is                        *)
(* min(dl, start + ttl - drift) (RedisLeaseHandle.Belief.validUntil).      *)
(***************************************************************************)
(* (The lock leaves at most one such renew; taking the least of their      *)
(* ends names no lane, so the definition holds without the lock and        *)
(* respects the lanes' symmetry.)                                          *)
OwnRenewEnds(a) == {call[a][l].start + call[a][l].ttl - Drift :
                       l \in {m \in Lane : OwnCall(a, m) /\ call[a][m].kind = "renew"}}
Deadline(a) == LET ends == OwnRenewEnds(a) IN
               IF ends = {} THEN dl[a] ELSE Min(dl[a], CHOOSE x \in ends : \A y \in ends : x <= y)

(***************************************************************************)
(* What RedisLeaseHandle.state() returns now: a stored ACTIVE or UNKNOWN   *)
(* whose local deadline has passed reads as LOST; an ACTIVE handle whose   *)
(* release is in flight reads as UNKNOWN (the key may be gone already).    *)
(***************************************************************************)
Observed(a) == IF hs[a] \in Live /\ cnow >= Deadline(a) THEN "LOST"
               ELSE IF hs[a] = "ACTIVE" /\ OwnInFlight(a, "release") THEN "UNKNOWN"
               ELSE hs[a]

(***************************************************************************)
(* The state a's handle stores once local expiry is applied: a live        *)
(* handle whose deadline has passed is LOST.  state() and every call and   *)
(* reply apply it first (RedisLeaseHandle.update: Belief.expire).          *)
(***************************************************************************)
StoredState(a) == IF hs[a] \in Live /\ cnow >= Deadline(a) THEN "LOST" ELSE hs[a]

(***************************************************************************)
(* Server s at time t: Redis forgets a key once its clock is past the      *)
(* key's expiry (expire.c: now > when), so during its last tick the key is *)
(* still there with PTTL 0.  The fencing counter, where it expires, is    *)
(* forgotten the same way once t is past its own expiry, which is never    *)
(* before the key's.                                                       *)
(***************************************************************************)
Expired(s, t) ==
    LET k == IF s.holder # None /\ t > s.expiry
             THEN [Empty EXCEPT !.fence = s.fence, !.fenceExpiry = s.fenceExpiry] ELSE s
    IN  IF CounterExpires /\ k.holder = None /\ t > k.fenceExpiry THEN Empty ELSE k

Request == [a : Attempt, kind : Kinds, ttl : Nat]   \* A request in flight: no reply is awaited.

(* Call c once its reply can no longer arrive (lost) or is a refusal, or   *)
(* once its handle was replaced (stale): its reply contents and its        *)
(* window are never read again, so they are reset, which keeps the state   *)
(* space small and changes no behaviour.  The kind, TTL and start stay:    *)
(* Timeout and the handle's in-flight deadline still read them.            *)
Forgotten(c, ph) == [c EXCEPT !.phase = ph, !.cap = NoPending, !.releaseSeen = FALSE,
                              !.reply = IF ph = "replied" THEN c.reply ELSE NoReply]

Reply == [status : Int, pttl : Int, token : Nat, grant : Nat, same : BOOLEAN, holder : Attempt \cup {None}]
        \* A script's reply.  holder is a ghost: the attempt whose value the script found or wrote.
Call == [kind : Kinds \cup {"none"}, ttl : Nat, start : Nat,
         phase : {"idle", "sent", "replied", "refused", "lost"}, reply : Reply,
         cap : 1..NoPending, releaseSeen : BOOLEAN, stale : BOOLEAN]
        \* A call awaiting its reply.
        \* phase: sent (in flight), replied (applied, reply on its way), refused (not applied,
        \* the refusal on its way), lost (applied, the reply will never arrive).
        \* cap, releaseSeen: the flight window (AttemptLedger.Flight.capMs, Flight.releaseSeen):
        \* the smallest TTL of the attempt's other renews in flight at any time since the send,
        \* and whether a release of it was.
        \* stale: the request of a handle that a newer handle of the attempt replaced.

(* Every variable has the type its comment says.                           *)
TypeOK ==
    /\ now \in Nat /\ lag \in 0..Drift
    /\ srv \in [holder : Attempt \cup {None}, expiry : Nat, fence : Nat, fenceExpiry : Nat, grant : Nat]
    /\ replica \in [holder : Attempt \cup {None}, expiry : Nat, fence : Nat, fenceExpiry : Nat, grant : Nat]
    /\ call \in [Attempt -> [Lane -> Call]]
    /\ sent \in [Attempt -> BOOLEAN]
    /\ hs \in [Attempt -> HandleStates]
    /\ dl \in [Attempt -> Int]
    /\ tok \in [Attempt -> Nat] /\ hgrant \in [Attempt -> Nat]
    /\ hfrom \in [Attempt -> Attempt \cup {None}]
    /\ ambiguousRenewCap \in [Attempt -> 1..NoPending]
    /\ ambiguousRelease \in [Attempt -> BOOLEAN]
    /\ seen \in [Attempt -> {"NONE"} \cup Terminal]
    /\ acquireUnsure \in [Attempt -> BOOLEAN]
    /\ delayed \subseteq Request
    /\ storeHigh \in Nat /\ storeLast \in Nat /\ storeMax \in Nat
    /\ grants \in Nat /\ calls \in Nat

(* No key, no counter, no handle, no call.                                 *)
Init ==
    /\ now = 0 /\ lag = 0
    /\ srv = Empty /\ replica = Empty
    /\ call = [a \in Attempt |-> [l \in Lane |-> NoCall]]
    /\ sent = [a \in Attempt |-> FALSE]
    /\ hs = [a \in Attempt |-> "NONE"]
    /\ dl = [a \in Attempt |-> 0]
    /\ tok = [a \in Attempt |-> 0] /\ hgrant = [a \in Attempt |-> 0]
    /\ hfrom = [a \in Attempt |-> None]
    /\ ambiguousRenewCap = [a \in Attempt |-> NoPending]
    /\ ambiguousRelease = [a \in Attempt |-> FALSE]
    /\ seen = [a \in Attempt |-> "NONE"]
    /\ acquireUnsure = [a \in Attempt |-> FALSE]
    /\ delayed = {}
    /\ storeHigh = 0 /\ storeLast = 0 /\ storeMax = 0
    /\ grants = 0 /\ calls = 0

-----------------------------------------------------------------------------
(***************************************************************************)
(* We now define the server scripts.  Each takes the server state s and    *)
(* returns <<new server state, reply>>; they are atomic (one EVALSHA).     *)
(***************************************************************************)

(* Whether the key's value h is "the same value" as attempt a: the         *)
(* scripts compare the whole ownerToken:operationId (GET key == ARGV[1] in *)
(* acquire.lua, renew.lua and release.lua).                                *)
SameValue(h, a) == h = a

(* Whether acquire.lua, run now for attempt a, takes its replay branch.    *)
ReplayBranch(a) == srv.holder # None /\ SameValue(srv.holder, a)

(* What acquire.lua's replay branch (status 2) leaves of server s, asked   *)
(* for TTL t: s as it is.  It reports what is left and never extends, so a *)
(* late replay cannot outlive the lease.                                   *)
ReplayedServer(s, t) == s

(* The next fencing token, issued by acquire.lua in the same script.       *)
NextToken(s) == IF Durability = "ClockFloor"
                THEN Max(s.fence + 1, now * TokensPerTick)
                ELSE s.fence + 1

(* acquire.lua: absent -> SET value PX ttl and issue a token (status 1,    *)
(* with no PTTL: the key lives the TTL the request asked for; under        *)
(* ClockFloor the counter lives Retention longer);                         *)
(* same value -> status 2 with the current PTTL and token, no extension;   *)
(* other value -> status 0 with PTTL and whether the owner token is shared. *)
AcquireScript(s, a, t) ==
    IF s.holder = None
    THEN LET tk == Tracked(NextToken(s))
             g == Tracked(grants + 1) IN
         << [holder |-> a, expiry |-> now + t, fence |-> tk, fenceExpiry |-> CounterExpiry(now + t),
             grant |-> g],
            [status |-> 1, pttl |-> 0, token |-> tk, grant |-> g, same |-> TRUE, holder |-> a] >>
    ELSE IF SameValue(s.holder, a)
    THEN << ReplayedServer(s, t),
            [status |-> 2, pttl |-> s.expiry - now, token |-> s.fence, grant |-> s.grant,
             same |-> TRUE, holder |-> s.holder] >>
    ELSE << s, [status |-> 0, pttl |-> 0, token |-> 0, grant |-> 0,
                same |-> OwnerOf[s.holder] = OwnerOf[a], holder |-> None] >>
    \* (Status 0 also carries PTTL as retryAfter; the wait loop's sleeping is
    \* not modelled, so the reply keeps 0 there.)

(* renew.lua: absent -> 0; other value -> -1; same -> PEXPIRE ttl (which   *)
(* may shorten the lease) and 1; under ClockFloor the counter's expiry     *)
(* follows, Retention later.                                               *)
RenewScript(s, a, t) ==
    IF s.holder = None THEN << s, [NoReply EXCEPT !.status = 0] >>
    ELSE IF SameValue(s.holder, a)
    THEN << [s EXCEPT !.expiry = now + t, !.fenceExpiry = CounterExpiry(now + t)],
            [NoReply EXCEPT !.status = 1] >>
    ELSE << s, [NoReply EXCEPT !.status = -1] >>

(* release.lua: same value -> DEL and 1; absent -> 0; other -> -1.         *)
ReleaseScript(s, a) ==
    IF s.holder = None THEN << s, [NoReply EXCEPT !.status = 0] >>
    ELSE IF SameValue(s.holder, a)
    THEN << [Empty EXCEPT !.fence = s.fence, !.fenceExpiry = s.fenceExpiry], [NoReply EXCEPT !.status = 1] >>
    ELSE << s, [NoReply EXCEPT !.status = -1] >>

(* inspect.lua: read-only.  What RedisLeaseAdapter.inspect reports to a:   *)
(* Held(holderIsThisAttempt, remaining, fencingToken) or Absent.           *)
InspectReply(a) ==
    IF srv.holder = None THEN [held |-> FALSE, mine |-> FALSE, pttl |-> 0, token |-> 0]
    ELSE [held |-> TRUE, mine |-> srv.holder = a, pttl |-> srv.expiry - now, token |-> srv.fence]

(* The script of a request of kind k with TTL t for attempt a, on s.       *)
Script(s, a, k, t) == CASE k = "acquire" -> AcquireScript(s, a, t)
                        [] k = "renew"   -> RenewScript(s, a, t)
                        [] k = "release" -> ReleaseScript(s, a)

(* Grants made by a script with reply r: one if it issued a token.         *)
GrantsAfter(k, r) == IF k = "acquire" /\ r.status = 1 THEN grants + 1 ELSE grants

-----------------------------------------------------------------------------
(* Sets handle a to state st with deadline d, token tk and grant g; sn is  *)
(* what its caller was last told (seen) while it is live, fr the attempt   *)
(* whose value its acquire reply found. A LOST or RELEASED handle's        *)
(* deadline is never read again, so it is reset (fewer states, no          *)
(* behaviour changes); its token is still read by a paused client's        *)
(* Effect, so it is kept. The attempt's ledger (ambiguousRenewCap,         *)
(* ambiguousRelease) outlives its handles: a replay after RELEASED or LOST *)
(* opens a new handle that a delayed request of the old one may still      *)
(* shorten or delete.                                                      *)
Handle(a, st, d, tk, g, sn, fr, un) ==
    /\ hs' = [hs EXCEPT ![a] = st]
    /\ hfrom' = [hfrom EXCEPT ![a] = fr]
    /\ dl' = [dl EXCEPT ![a] = IF st \in Terminal THEN 0 ELSE d]
    /\ tok' = [tok EXCEPT ![a] = tk]
    /\ hgrant' = [hgrant EXCEPT ![a] = g]
    /\ seen' = [seen EXCEPT ![a] = IF st \in Terminal THEN st ELSE sn]
    /\ acquireUnsure' = [acquireUnsure EXCEPT ![a] = un]
    /\ UNCHANGED <<ambiguousRenewCap, ambiguousRelease>>

(* Whether a's caller is still unsure of a key of a once an acquire of a   *)
(* was answered: only while a delayed acquire of a may still run.          *)
StillUnsure(a) == TrackUnsure /\ \E m \in delayed : m.a = a /\ m.kind = "acquire"

SetHandle(a, st, d, tk, g) == Handle(a, st, d, tk, g, seen[a], hfrom[a], acquireUnsure[a])   \* the same handle
NewHandle(a, st, d, tk, g, fr) == Handle(a, st, d, tk, g, "NONE", fr, StillUnsure(a))      \* a handle replacing a's old one

(***************************************************************************)
(* We now define the client's calls.  A call starts with a send on a lane, *)
(* measured from start = the client's clock before the send.  The send     *)
(* opens the call's flight window (AttemptLedger.beginAcquire/beginRenew)  *)
(* with the renews and releases of the attempt in flight now, and widens   *)
(* the window of every other call of the attempt in flight.                *)
(***************************************************************************)
(* The call that a send of kind k with TTL t on a's lane l opens, with the *)
(* window AttemptLedger.beginAcquire/beginRenew opens: the renews and      *)
(* releases of a in flight now (the ambiguous ones are read at the reply). *)
(* A release reads neither its start nor its window: they stay at NoCall's *)
(* values, which keeps the state space small.                              *)
Opened(a, l, k, t) ==
    IF k = "release"
    THEN [NoCall EXCEPT !.kind = k, !.phase = "sent"]
    ELSE [kind |-> k, ttl |-> t, start |-> cnow, phase |-> "sent", reply |-> NoReply,
          cap |-> SetMin(RenewTtlsInFlight(a, Lane \ {l})), releaseSeen |-> ReleaseInFlight(a, Lane \ {l}),
          stale |-> FALSE]

(* Call c once a request of kind k with TTL t of the same attempt is sent: *)
(* a renew caps its window (AttemptLedger.beginRenew caps every flight     *)
(* already open), a release marks it (beginRelease).  Only a window that a *)
(* reply may still read is widened: not a release's, nor a lost, refused   *)
(* or stale call's (Forgotten reset those).                                *)
Widened(c, k, t) == CASE c.kind \in {"none", "release"} \/ c.stale
                           \/ c.phase \in {"lost", "refused"} -> c
                      [] k = "renew"                    -> [c EXCEPT !.cap = Min(c.cap, t)]
                      [] k = "release"                  -> [c EXCEPT !.releaseSeen = TRUE]
                      [] OTHER                          -> c

(* Attempt a sends a request of kind k with TTL t on its lane l.           *)
Send(a, l, k, t) ==
    /\ call' = [call EXCEPT ![a] = [m \in Lane |-> IF m = l THEN Opened(a, l, k, t)
                                                   ELSE Widened(call[a][m], k, t)]]
    /\ calls' = calls + 1

(* A TTL the client sends: TTL <= drift is rejected before any I/O         *)
(* (RedisLeaseConfig.ttlMillis throws; a stuttering step).  A call sent    *)
(* with such a TTL would return Rejected (ResultOf).                       *)
TtlOk(t) == t > Drift

(* RedisLeaseAdapter.newAttempt: a fresh owner token bound to an operation *)
(* id.  Purely local, so a stuttering step here: the attempts exist from   *)
(* the start as model values.                                              *)
NewAttempt(a) == ~sent[a] /\ UNCHANGED vars

(* RedisLeaseAdapter.tryAcquire, first send of attempt a with TTL t.       *)
(* A TTL <= drift is rejected before any I/O (a stuttering step).          *)
TryAcquire(a, l, t) ==
    /\ ~sent[a] /\ call[a][l] = NoCall
    /\ TtlOk(t)
    /\ sent' = [sent EXCEPT ![a] = TRUE]
    /\ Send(a, l, "acquire", t)
    /\ UNCHANGED <<now, lag, srv, replica, handleVars, delayed, storeVars, grants>>

(* RedisLeaseAdapter.tryAcquire again with the same LeaseAttempt, whatever *)
(* its handle's state: after Indeterminate, the wait loop's retry after    *)
(* Contended, a retry while the watchdog renews, or a re-acquire after     *)
(* the handle was RELEASED or LOST.  Not serialized with anything.         *)
Replay(a, l, t) ==
    /\ sent[a] /\ call[a][l] = NoCall
    /\ TtlOk(t)
    /\ Send(a, l, "acquire", t)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* Whether a's handle may send a renew on the idle lane l: it is not       *)
(* LOST/RELEASED (also not by local expiry), and no release of the         *)
(* attempt is ambiguous or in flight (RedisLeaseHandle.renew's check       *)
(* before AttemptLedger.beginRenew).                                       *)
CanRenew(a, l) == hs[a] \in Live /\ Observed(a) # "LOST" /\ ~ReleaseMayDelete(a, l)

(* RedisLeaseHandle.renew(ttl): sends renew.lua once it holds the handle's *)
(* lock.  On a LOST/RELEASED handle it returns NotActive and sends nothing *)
(* (a stuttering step).                                                    *)
Renew(a, l, t) ==
    /\ call[a][l] = NoCall /\ ~Locked(a) /\ CanRenew(a, l)
    /\ TtlOk(t)
    /\ Send(a, l, "renew", t)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* RedisLeaseHandle.release(): sends release.lua once it holds the lock.   *)
(* On a LOST/RELEASED handle it returns NotActive and sends nothing.       *)
Release(a, l) ==
    /\ call[a][l] = NoCall /\ ~Locked(a)
    /\ hs[a] \in Live /\ Observed(a) # "LOST"
    /\ Send(a, l, "release", 0)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* RedisLeaseAdapter.inspect: inspect.lua is read-only and the outcome     *)
(* changes no handle, so this is a stuttering step.  A trace checker can   *)
(* compare the Java result with InspectReply(a).                           *)
Inspect(a) == UNCHANGED vars

(* RedisLeaseHandle.state() on local expiry: its caller is told LOST       *)
(* (seen), and the handle stores what local expiry leaves, StoredState(a): *)
(* LOST, which is terminal.  (A live handle's caller was never told LOST,  *)
(* so the second conjunct only keeps a handle that stores nothing from     *)
(* telling it twice.)                                                      *)
State(a) ==
    /\ hs[a] \in Live /\ cnow >= Deadline(a)
    /\ seen[a] # "LOST"
    /\ Handle(a, StoredState(a), dl[a], tok[a], hgrant[a], "LOST", hfrom[a], acquireUnsure[a])
    /\ UNCHANGED <<now, lag, srv, replica, call, sent, delayed, storeVars, grants, calls>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* We now define the server's side of a call and the faults.               *)
(***************************************************************************)

(* The server runs the script of the request on a's lane l (Lua via        *)
(* EVALSHA): acquire.lua, renew.lua or release.lua; the reply is on its    *)
(* way.                                                                    *)
Apply(a, l) ==
    /\ call[a][l].phase = "sent"
    /\ LET c == call[a][l]
           r == Script(srv, a, c.kind, c.ttl) IN
       /\ srv' = r[1]
       /\ call' = [call EXCEPT ![a][l] = [c EXCEPT !.phase = "replied", !.reply = r[2]]]
       /\ grants' = GrantsAfter(c.kind, r[2])
    /\ UNCHANGED <<now, lag, replica, sent, handleVars, delayed, storeVars, calls>>

(* A request whose client already gave up reaches the server and runs.     *)
(* Its reply goes nowhere.                                                 *)
ApplyLate(m) ==
    /\ LET r == Script(srv, m.a, m.kind, m.ttl) IN
       /\ srv' = r[1]
       /\ grants' = GrantsAfter(m.kind, r[2])
    /\ delayed' = delayed \ {m}
    /\ UNCHANGED <<now, lag, replica, call, sent, handleVars, storeVars, calls>>

(* The server refuses the request on a's lane l before running it (BUSY,   *)
(* OOM, LOADING, MASTERDOWN, TRYAGAIN): it is definitely not applied.      *)
Refuse(a, l) ==
    /\ "Refuse" \in Faults
    /\ call[a][l].phase = "sent"
    /\ call' = [call EXCEPT ![a][l] = Forgotten(call[a][l], "refused")]
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants, calls>>

(* The reply to the request on a's lane l is lost after the script ran.    *)
LoseReply(a, l) ==
    /\ "LoseReply" \in Faults
    /\ call[a][l].phase = "replied"
    /\ call' = [call EXCEPT ![a][l] = Forgotten(call[a][l], "lost")]
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants, calls>>

(* The state and the deadline a live handle keeps after its renew on lane  *)
(* l was left unanswered (Breakers.tla changes each apart).                *)
UnansweredRenewState(a) == "UNKNOWN"
UnansweredRenewDeadline(a, l) == Deadline(a)

(* The renew on a's lane l is left ambiguous (RedisLeaseHandle.renew-      *)
(* Unanswered, AttemptLedger.endRenew with ambiguous = true): a live       *)
(* handle becomes UNKNOWN and stores the deadline its renew in flight      *)
(* already capped, Deadline(a) = min(old, start + ttl - drift), and the    *)
(* ledger keeps the TTL as a cap on every later budget.  LOST and RELEASED *)
(* stay; a stale renew changes only the ledger.                            *)
RenewUnanswered(a, l) ==
    LET c == call[a][l]
        keep == c.stale \/ hs[a] \in Terminal IN
    /\ hs' = IF keep THEN hs ELSE [hs EXCEPT ![a] = UnansweredRenewState(a)]
    /\ dl' = IF keep THEN dl ELSE [dl EXCEPT ![a] = UnansweredRenewDeadline(a, l)]
    /\ ambiguousRenewCap' = [ambiguousRenewCap EXCEPT ![a] = Min(ambiguousRenewCap[a], c.ttl)]
    /\ UNCHANGED <<tok, hgrant, hfrom, ambiguousRelease, seen, acquireUnsure>>

(* The release on a's lane l is left ambiguous (RedisLeaseHandle.release-  *)
(* Unanswered, AttemptLedger.endRelease with ambiguous = true): a live     *)
(* handle becomes UNKNOWN, and the ledger keeps that a release may still   *)
(* delete the lease.  LOST and RELEASED stay; a stale release changes only *)
(* the ledger.                                                             *)
ReleaseUnanswered(a, l) ==
    /\ hs' = IF call[a][l].stale \/ hs[a] \in Terminal THEN hs ELSE [hs EXCEPT ![a] = "UNKNOWN"]
    /\ ambiguousRelease' = [ambiguousRelease EXCEPT ![a] = TRUE]
    /\ UNCHANGED <<dl, tok, hgrant, hfrom, ambiguousRenewCap, seen, acquireUnsure>>

(* Whether the client gives up on call c: its reply was lost, or it was   *)
(* sent and may still be delayed (the command timeout fires in both).      *)
GivesUp(c) == \/ c.phase = "lost"
              \/ c.phase = "sent" /\ "Delay" \in Faults

(* The client gives up on its call (command timeout, connection lost after *)
(* the write): the outcome is Indeterminate.  If the request had not run   *)
(* yet, it may still run later (Delay).  An acquire changes no handle; its *)
(* caller now knows that the attempt's key may exist with no handle of it  *)
(* (acquireUnsure), until a later acquire is answered with a handle and    *)
(* no delayed acquire of the attempt may still run.                        *)
Timeout(a, l) ==
    LET c == call[a][l] IN
    /\ GivesUp(c)
    /\ delayed' = IF c.phase = "sent"
                  THEN delayed \cup {[a |-> a, kind |-> c.kind, ttl |-> c.ttl]}
                  ELSE delayed
    /\ call' = [call EXCEPT ![a][l] = NoCall]
    /\ CASE c.kind = "acquire" -> /\ acquireUnsure' = [acquireUnsure EXCEPT ![a] = TrackUnsure]
                                  /\ UNCHANGED <<hs, dl, tok, hgrant, hfrom, ambiguousRenewCap, ambiguousRelease, seen>>
         [] c.kind = "renew"   -> RenewUnanswered(a, l)
         [] c.kind = "release" -> ReleaseUnanswered(a, l)
    /\ UNCHANGED <<now, lag, srv, replica, sent, storeVars, grants, calls>>

(***************************************************************************)
(* Deliver(a, l): the reply (or refusal) reaches the client and the call   *)
(* returns its outcome.  This is where the client side of                  *)
(* RedisLeaseAdapter.tryAcquire, RedisLeaseHandle.renew and                *)
(* RedisLeaseHandle.release is modelled.  Every reply first applies local  *)
(* expiry: a handle whose deadline passed while the call was in flight is  *)
(* LOST, whatever the reply says.                                          *)
(***************************************************************************)

(* The handle state for a new local deadline d: ACTIVE only if it is still *)
(* in the future and no release may have deleted the lease                 *)
(* (RedisLeaseHandle.granted, then Belief.expire).                         *)
Fresh(a, l, d) == IF d <= cnow THEN "LOST"
                  ELSE IF ReleaseMayDelete(a, l) THEN "UNKNOWN"
                  ELSE "ACTIVE"

(* What the server's reply says is left of the lease: a replay (status 2)  *)
(* gets min(request TTL, reply PTTL), a grant or a renew the request TTL,  *)
(* which their replies do not repeat (serverMs and ttlMs in                *)
(* RedisLeaseAdapter.tryAcquire, ttlMs in RedisLeaseHandle.renewed).       *)
Granted(a, l) == IF call[a][l].kind = "acquire" /\ call[a][l].reply.status = 2
                 THEN Min(call[a][l].ttl, call[a][l].reply.pttl) ELSE call[a][l].ttl

(* The local deadline that the reply on a's lane l gives: measured from    *)
(* start, the client's clock before the send, the granted time capped by   *)
(* the ledger, less the drift (RedisLeaseHandle.granted).                  *)
NewDeadline(a, l) == call[a][l].start + Min(Granted(a, l), BudgetCap(a, l)) - Drift

(* What RedisLeaseHandle.observedServerExpiry reports once the reply is    *)
(* delivered: the server's expiry as the reply shows it, on the client's   *)
(* clock (the model's wall clock), measured from before the send, with     *)
(* neither the drift budget nor the ledger's cap taken off (defect #6      *)
(* reported the local budget instead).  No action reads it; trace          *)
(* validation compares the Java value with it.                             *)
ObservedExpiry(a, l) == call[a][l].start + Granted(a, l)

(* Whether an acquire reply refreshes a's live handle                      *)
(* (RedisLeaseHandle.absorbReplay) instead of opening a new one: a replay  *)
(* (status 2) with the handle's own token into a handle that local expiry  *)
(* has not ended.  Without tracked tokens every such replay is absorbed;   *)
(* the budget is the same either way, only the handle a stale request      *)
(* belongs to differs.                                                     *)
Absorbs(a, l) ==
    /\ call[a][l].reply.status = 2
    /\ hs[a] \in Live /\ Observed(a) # "LOST"
    /\ ~TrackTokens \/ call[a][l].reply.token = tok[a]

(* What a reply 1 (renewed) to the renew on a's lane l does, as the record *)
(* [state, deadline, outcome] (RedisLeaseHandle.renewed): local expiry     *)
(* applies first, so a handle that is no longer live keeps its state (and  *)
(* the renew returns Lost); a live one takes the new deadline and the      *)
(* state Fresh gives for it, and the outcome follows from that state.      *)
RenewReply(a, l) ==
    LET d == NewDeadline(a, l)
        st == IF StoredState(a) \in Live THEN Fresh(a, l, d) ELSE StoredState(a) IN
    [state |-> st, deadline |-> d,
     outcome |-> CASE st = "ACTIVE"  -> "Renewed"
                   [] st = "UNKNOWN" -> "Indeterminate"
                   [] OTHER          -> "Lost"]

(* What a call the server refused before running it returns: Overloaded   *)
(* (LettuceFailures: BUSY, LOADING, ...), whatever its kind.               *)
RefusedOutcome(a, l) == "Overloaded"

(* The outcome the call on a's lane l returns when its reply (or refusal)  *)
(* is delivered now: the names of the Java outcome records.                *)
ResultOf(a, l) ==
    LET c == call[a][l]
        r == c.reply IN
    CASE c.phase = "refused" -> RefusedOutcome(a, l)
      [] c.ttl <= Drift /\ c.kind # "release" -> "Rejected"   \* only if TtlOk let it be sent
      [] c.kind = "acquire" ->
            CASE r.status = 1 -> "Acquired"
              [] r.status = 2 -> "ReplayedSameOperation"
              [] r.same       -> "OwnerOperationConflict"
              [] OTHER        -> "Contended"
      [] c.kind = "renew" ->
            CASE c.stale      -> "Lost"   \* its handle was superseded: LOST
              [] r.status = 1 -> RenewReply(a, l).outcome
              [] OTHER        -> "Lost"
      [] c.kind = "release" ->
            CASE r.status = 1 -> "Released"
              [] r.status = 0 -> "AlreadyAbsent"
              [] OTHER        -> "NotOwner"

(* Status 1 or 2 refreshes the live handle or opens a new one (ACTIVE, or  *)
(* LOST if the budget is spent, or UNKNOWN if a release may have deleted   *)
(* the lease); a new one supersedes the old, whose own request still in    *)
(* flight goes stale.  Status 0 makes none.                                *)
DeliverAcquire(a, l) ==
    LET r == call[a][l].reply
        d == NewDeadline(a, l) IN
    CASE r.status \notin {1, 2} ->
            /\ call' = [call EXCEPT ![a][l] = NoCall]
            /\ UNCHANGED handleVars
      [] Absorbs(a, l) ->
            /\ call' = [call EXCEPT ![a][l] = NoCall]
            /\ Handle(a, Fresh(a, l, d), d, r.token, r.grant, seen[a], r.holder, StillUnsure(a))
      [] OTHER ->
            /\ call' = [call EXCEPT ![a] = [m \in Lane |->
                          IF m = l THEN NoCall
                          ELSE IF OwnCall(a, m) THEN [Forgotten(call[a][m], call[a][m].phase) EXCEPT !.stale = TRUE]
                          ELSE call[a][m]]]
            /\ NewHandle(a, Fresh(a, l, d), d, r.token, r.grant, r.holder)

(* Whether the reply to the renew on a's lane l changes no handle: a newer *)
(* handle replaced the one that sent it, or that one ended meanwhile.      *)
RenewReplyIgnored(a, l) == call[a][l].stale \/ hs[a] \in Terminal

(* Status 1 makes the handle ACTIVE again with the new budget (or UNKNOWN  *)
(* or LOST, see RenewReply); a handle that went LOST or RELEASED meanwhile *)
(* stays so; 0 or -1 makes it LOST.                                        *)
DeliverRenew(a, l) ==
    LET c == call[a][l] IN
    /\ call' = [call EXCEPT ![a][l] = NoCall]
    /\ CASE RenewReplyIgnored(a, l) ->
              UNCHANGED handleVars
         [] c.reply.status = 1 ->
              SetHandle(a, RenewReply(a, l).state, RenewReply(a, l).deadline, tok[a], hgrant[a])
         [] OTHER ->
              SetHandle(a, "LOST", 0, tok[a], hgrant[a])

(* 1 (Released) and 0 (AlreadyAbsent) make the handle RELEASED, -1         *)
(* (NotOwner) LOST; a handle that went LOST meanwhile, also by local       *)
(* expiry before the reply, stays LOST.                                    *)
DeliverRelease(a, l) ==
    LET c == call[a][l]
        st == IF c.reply.status \in {0, 1} THEN "RELEASED" ELSE "LOST" IN
    /\ call' = [call EXCEPT ![a][l] = NoCall]
    /\ IF c.stale \/ hs[a] \in Terminal THEN UNCHANGED handleVars
       ELSE IF StoredState(a) = "LOST" THEN SetHandle(a, "LOST", 0, tok[a], hgrant[a])
       ELSE SetHandle(a, st, 0, tok[a], hgrant[a])

(* With ReplicaAck, a token is reported only after WAIT saw the replica    *)
(* take it: the reply of a grant (status 1) or a replay (status 2, whose   *)
(* grant may have come from a delayed request) waits until the replica's   *)
(* counter reached the token.                                              *)
Acked(a, l) == \/ Durability # "ReplicaAck"
               \/ call[a][l].kind # "acquire" \/ call[a][l].reply.status \notin {1, 2}
               \/ replica.fence >= call[a][l].reply.token

(* The reply reaches the client: RedisLeaseAdapter.tryAcquire,             *)
(* RedisLeaseHandle.renew or RedisLeaseHandle.release returns              *)
(* ResultOf(a, l).  A refusal (Overloaded) and the exception for a TTL     *)
(* <= drift that was sent anyway (Rejected) change no handle.              *)
Deliver(a, l) ==
    /\ call[a][l].phase \in {"replied", "refused"}
    /\ Acked(a, l)
    /\ IF ResultOf(a, l) \in {"Overloaded", "Rejected"}
       THEN /\ call' = [call EXCEPT ![a][l] = NoCall]
            /\ UNCHANGED handleVars
       ELSE CASE call[a][l].kind = "acquire" -> DeliverAcquire(a, l)
              [] call[a][l].kind = "renew"   -> DeliverRenew(a, l)
              [] call[a][l].kind = "release" -> DeliverRelease(a, l)
    /\ UNCHANGED <<now, lag, srv, replica, sent, delayed, storeVars, grants, calls>>

(* Time passes by one tick on the server; the client's clock advances too, *)
(* or (d = 1) falls one more tick behind, up to Drift.  Keys expire.       *)
Tick(d) ==
    /\ lag + d <= Drift
    /\ now' = now + 1
    /\ lag' = lag + d
    /\ srv' = Expired(srv, now + 1)
    /\ replica' = Expired(replica, now + 1)
    /\ UNCHANGED <<call, sent, handleVars, delayed, storeVars, grants, calls>>

(* FencedStore.write(token): a client writes its effect with the token of  *)
(* its handle.  It checked state() = ACTIVE at some point and may have     *)
(* been paused since: it writes on the stale belief of any handle.  The    *)
(* store accepts iff token >= the highest token it accepted (a rejected    *)
(* write changes nothing).                                                 *)
Effect(a) ==
    /\ "Pause" \in Faults
    /\ hs[a] # "NONE"
    /\ tok[a] >= storeHigh
    /\ storeHigh' = tok[a]
    /\ storeLast' = hgrant[a]
    /\ storeMax' = Max(storeMax, hgrant[a])
    /\ storeLast # hgrant[a] \/ storeHigh # tok[a]
    /\ UNCHANGED <<now, lag, srv, replica, call, sent, handleVars, delayed, grants, calls>>

(* A paused client: its belief is frozen while time passes.  Nothing in    *)
(* the state changes (Effect allows the stale write), so this stutters.    *)
Pause(a) == UNCHANGED vars

(* Asynchronous replication copies the primary to the replica.             *)
Replicate ==
    /\ "Failover" \in Faults
    /\ replica # srv
    /\ replica' = srv
    /\ UNCHANGED <<now, lag, srv, call, sent, handleVars, delayed, storeVars, grants, calls>>

(* Replies lost when the connections to the old server close.              *)
DropReplies == [a \in Attempt |-> [l \in Lane |->
                   IF call[a][l].phase = "replied" THEN Forgotten(call[a][l], "lost")
                   ELSE call[a][l]]]

(* A failover promotes the replica: the key and the counter go back to the *)
(* last replicated state.  It takes at least one tick.                     *)
Failover ==
    /\ "Failover" \in Faults
    /\ now' = now + 1
    /\ srv' = Expired(replica, now + 1)
    /\ replica' = Expired(replica, now + 1)
    /\ call' = DropReplies
    /\ UNCHANGED <<lag, sent, handleVars, delayed, storeVars, grants, calls>>

(* The server restarts without persistence: key and counter are gone (the  *)
(* replicas resynchronise from it).  It takes at least one tick.           *)
Restart ==
    /\ "Restart" \in Faults
    /\ now' = now + 1
    /\ srv' = Empty
    /\ replica' = Empty
    /\ call' = DropReplies
    /\ UNCHANGED <<lag, sent, handleVars, delayed, storeVars, grants, calls>>

-----------------------------------------------------------------------------
(* Every step of the protocol: a client call's send, a script run, a       *)
(* refusal, a lost reply, a timeout, a reply, local expiry, a write to the *)
(* store, a delayed request, time, replication and the failures.           *)
Next ==
    \/ \E a \in Attempt, l \in Lane, t \in Ttl : TryAcquire(a, l, t) \/ Replay(a, l, t) \/ Renew(a, l, t)
    \/ \E a \in Attempt, l \in Lane : \/ Release(a, l) \/ Apply(a, l) \/ Refuse(a, l)
                                      \/ LoseReply(a, l) \/ Timeout(a, l) \/ Deliver(a, l)
    \/ \E a \in Attempt : State(a) \/ Effect(a)
    \/ \E m \in delayed : ApplyLate(m)
    \/ \E d \in {0, 1} : Tick(d)
    \/ Replicate \/ Failover \/ Restart

Spec == Init /\ [][Next]_vars   \* The protocol: every behaviour starts in Init and takes Next steps.

-----------------------------------------------------------------------------
(***************************************************************************)
(* The invariants of the contract (docs/contract.md), one broken part per  *)
(* name so that TLC                                                        *)
(* names what broke.  The state predicates are checked as INVARIANTs; the  *)
(* ones that speak about one step (an outcome and the state right after    *)
(* it, a send, a script run) are action properties [][...]_vars checked    *)
(* as PROPERTYs.                                                           *)
(***************************************************************************)

(* 1. Whenever state() says ACTIVE, the server holds this attempt's value. *)
ActiveHoldsKey == \A a \in Attempt : Observed(a) = "ACTIVE" => srv.holder = a

(* 2. ... and will not expire it before the handle's local deadline.  The  *)
(* client clock is the server clock minus lag, and lag may still grow up   *)
(* to Drift, so the deadline on the client clock is reached at server time *)
(* Deadline(a) + Drift at the latest: the key must live until then.        *)
ValidityWithinServerLease ==
    \A a \in Attempt : Observed(a) = "ACTIVE" /\ srv.holder = a => Deadline(a) + Drift <= srv.expiry

(* 3. A handle's grant was issued to its own attempt: another operation of *)
(* the same owner never inherits the lease (nor a handle made from it).    *)
NoInheritance == \A a \in Attempt : hs[a] # "NONE" => hfrom[a] = a

(* 4. At most one handle of the resource says ACTIVE at any instant.       *)
MutualExclusion ==
    \A a, b \in Attempt : Observed(a) = "ACTIVE" /\ Observed(b) = "ACTIVE" => a = b

(* The step returns the call on a's lane l with the reply (or refusal) it  *)
(* got.                                                                    *)
Delivered(a, l) == call[a][l].phase \in {"replied", "refused"} /\ call'[a][l] = NoCall

(* The outcomes that set a new local deadline.                             *)
Successes == {"Acquired", "ReplayedSameOperation", "Renewed", "Indeterminate"}

(* Outcome o agrees with state st that state() returns right after it.     *)
(* (A handle that went LOST during a release call stays LOST.)             *)
Agrees(o, st) == CASE o = "Renewed"                       -> st = "ACTIVE"
                   [] o \in {"Lost", "NotOwner"}          -> st = "LOST"
                   [] o \in {"Released", "AlreadyAbsent"} -> st \in Terminal
                   [] OTHER                               -> TRUE

(* 5. Once a handle's caller was told LOST or RELEASED, state() keeps      *)
(* saying so.                                                              *)
TerminalStays == \A a \in Attempt : seen[a] # "NONE" => Observed(a) = seen[a]

(* 6. No outcome contradicts the state of its handle right after it (a     *)
(* stale request's handle was superseded, and is not modelled).            *)
StateOutcomeAgreement ==
    [][\A a \in Attempt, l \in Lane : Delivered(a, l) /\ ~call[a][l].stale
          => Agrees(ResultOf(a, l), Observed(a)')]_vars

(* 7. An ACQUIRE that found this attempt's own value (a replay, whether    *)
(* the client still waits for it or not) leaves the server's expiry as it  *)
(* was.                                                                    *)
ReplayNeverExtends ==
    [][ /\ \A a \in Attempt, l \in Lane :
              call[a][l].phase = "sent" /\ call'[a][l].phase = "replied"
              /\ call[a][l].kind = "acquire" /\ ReplayBranch(a)
              => srv'.expiry = srv.expiry
        /\ \A m \in delayed \ delayed' : m.kind = "acquire" /\ ReplayBranch(m.a)
              => srv'.expiry = srv.expiry ]_vars


(* 8. The fenced store never accepted a write from an older grant after    *)
(* one from a newer grant: the last accepted write comes from the newest   *)
(* grant that ever wrote.  (It accepts token >= highest by construction;   *)
(* this breaks exactly when a token was issued twice.)                     *)
FencedEffects == storeLast = storeMax

(* 9. A call that returns Unavailable, Overloaded or a "rejected before    *)
(* any I/O" exception did not change the server: it returns so only for a  *)
(* request the server refused, and a refusal leaves the server (srv, the   *)
(* grants made, the requests still to run) as it was.                      *)
CertaintyIsHonest ==
    [][\A a \in Attempt, l \in Lane :
          /\ Delivered(a, l) /\ ResultOf(a, l) \in {"Unavailable", "Overloaded", "Rejected"}
                => call[a][l].phase = "refused"
          /\ call[a][l].phase = "sent" /\ call'[a][l].phase = "refused"
                => srv' = srv /\ grants' = grants /\ delayed' = delayed]_vars

(* 10. A handle sends no request once it is LOST or RELEASED (also by      *)
(* local expiry): renew and release then return NotActive.                 *)
NoSendAfterEnd ==
    [][\A a \in Attempt, l \in Lane :
          call[a][l] = NoCall /\ call'[a][l].kind \in {"renew", "release"} => Observed(a) \in Live]_vars

(* 11. A success never gives a live handle more than the TTL it asked for, *)
(* counted from before the send, less the drift.                           *)
BudgetWithinTtl ==
    [][\A a \in Attempt, l \in Lane :
          Delivered(a, l) /\ ~call[a][l].stale /\ ResultOf(a, l) \in Successes /\ hs'[a] \in Live
          => dl'[a] <= call[a][l].start + call[a][l].ttl - Drift]_vars

(* 12. An UNKNOWN handle's deadline grows only on a success of its own.    *)
UnknownGrowsOnlyOnSuccess ==
    [][\A a \in Attempt :
          hs[a] = "UNKNOWN" /\ hs'[a] \in Live /\ dl'[a] > dl[a]
          => \E l \in Lane : Delivered(a, l) /\ ~call[a][l].stale /\ ResultOf(a, l) \in Successes]_vars

(* How a renew ended, as its caller was told: its outcome if a reply or a  *)
(* refusal came, Indeterminate if the client gave up (Timeout).            *)
RenewOutcome(a, l) == IF call[a][l].phase \in {"replied", "refused"} THEN ResultOf(a, l) ELSE "Indeterminate"

(* 13. A renew of the handle that ends Lost or Indeterminate, by its reply *)
(* or by giving up, leaves state() saying LOST or UNKNOWN, never ACTIVE:   *)
(* the lease is or may be lost, and whoever renews (the watchdog) and      *)
(* whoever reads state() learn it at once.  (The watchdog then stops and   *)
(* tells the work: the property suite's LossIsReported holds it to that.)  *)
LossIsReported ==
    [][\A a \in Attempt, l \in Lane :
          call[a][l].kind = "renew" /\ ~call[a][l].stale /\ call'[a][l] = NoCall
          /\ RenewOutcome(a, l) \in {"Lost", "Indeterminate"}
          => Observed(a)' # "ACTIVE"]_vars

(* 14. No key of an attempt is left on the server behind its caller's      *)
(* back: while the key holds a's value and a has no handle or its handle   *)
(* says RELEASED, an acquire of a is still awaiting its outcome or one     *)
(* ended Indeterminate and none answered since (its caller was told the    *)
(* key may exist).  A LOST handle is left out: local expiry ends it up to  *)
(* Drift ticks and a request's flight before the server does               *)
(* (ValidityWithinServerLease).                                            *)
NoLeaseLeftBehind ==
    \A a \in Attempt : srv.holder = a /\ hs[a] \in {"NONE", "RELEASED"}
        => acquireUnsure[a] \/ \E l \in Lane : call[a][l].kind = "acquire"

(* 15. A reply to a request of a handle that a newer handle of the same    *)
(* attempt replaced (stale), or giving up on one, changes no handle: the   *)
(* handle's state, deadline, token, grant, origin and what its caller was  *)
(* told stay; only the ledger still counts the request.                    *)
StaleReplyChangesNoHandle ==
    [][\A a \in Attempt, l \in Lane :
          call[a][l].stale /\ call'[a][l] = NoCall => UNCHANGED <<hs, dl, tok, hgrant, hfrom, seen>>]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* What will happen.  The steps the system controls are fair: the server    *)
(* runs each request it received (Apply), each reply or refusal reaches     *)
(* its client (Deliver), the client gives up on a call whose reply will     *)
(* not come (Timeout: the command timeout), state() is read (State), and    *)
(* time advances (Tick).  The clients' calls are not: a client may stop     *)
(* calling at any time.  A fault is a step nobody has to take, so none is   *)
(* fair.                                                                    *)
(***************************************************************************)
TickStep == \E d \in {0, 1} : Tick(d)   \* Time passes.

Fairness ==
    /\ \A a \in Attempt, l \in Lane : /\ WF_vars(Apply(a, l))
                                      /\ WF_vars(Deliver(a, l))
                                      /\ WF_vars(Timeout(a, l))
    /\ \A a \in Attempt : WF_vars(State(a))
    /\ WF_vars(TickStep)

LiveSpec == Spec /\ Fairness   \* The protocol with its fair steps.

(* Attempt a sends nothing: no call of a in flight, no request of a delayed. *)
Quiet(a) == (\A l \in Lane : call[a][l].kind = "none") /\ (\A m \in delayed : m.a # a)

(* 16. A key whose holder sends nothing more goes: once its TTL of server  *)
(* time has passed, the server forgets it, and it stays gone.              *)
ExpiredLeaseComesFree == \A a \in Attempt : <>[]Quiet(a) => <>[](srv.holder # a)

(* 17. Every call returns: with its reply or refusal, or the timeout's     *)
(* Indeterminate.                                                          *)
EveryCallReturns == \A a \in Attempt, l \in Lane : call[a][l].kind # "none" ~> call[a][l].kind = "none"

(* 18. An UNKNOWN handle whose attempt sends nothing more settles: it      *)
(* becomes ACTIVE, LOST or RELEASED (local expiry at the latest), and does *)
(* not go back to UNKNOWN.                                                 *)
UnknownIsSettled == \A a \in Attempt : <>[]Quiet(a) => <>[](hs[a] # "UNKNOWN")

(***************************************************************************)
(* The wait loop (RedisLeaseAdapter.tryAcquire with a wait timeout): after *)
(* a try that gave no handle (Contended, Overloaded, Unavailable or        *)
(* Indeterminate: RedisLeaseAdapter.retryPause), it pauses and tries the   *)
(* same attempt again, a Replay; a release signal may end the pause early. *)
(* The pause's length is not modelled, so a try is fair: a wait whose      *)
(* timeout does not come first tries again.                                *)
(***************************************************************************)
Waiting(a) == sent[a] /\ hs[a] = "NONE" /\ Quiet(a)   \* a has tried, holds no handle, awaits nothing.

Retry(a) == Waiting(a) /\ \E l \in Lane, t \in Ttl : Replay(a, l, t)   \* The wait loop's next try.

WaitSpec == LiveSpec /\ \A a \in Attempt : WF_vars(Retry(a))   \* LiveSpec with waits that never time out.

(* 19. The wait loop wakes: a waiting attempt tries again, after its pause *)
(* or at a release signal, whoever holds the key.                          *)
WaitLoopWakes == \A a \in Attempt : Waiting(a) ~> ~Waiting(a)

(* 20. A waiter is granted once the lease is free for good: when every     *)
(* other attempt sends nothing more from some point on, a waiting attempt  *)
(* gets a handle (its holder's key expires at the latest).                 *)
WaiterIsGranted == \A a \in Attempt : <>[](\A b \in Attempt \ {a} : Quiet(b)) => (Waiting(a) ~> hs[a] # "NONE")

(***************************************************************************)
(* The watchdog (LeaseWatch.renewNow): it renews a's ACTIVE handle when    *)
(* half of the budget is left or less (RenewCadence.regular: no later than *)
(* half of what is left), here one tick before the deadline.  Its timer    *)
(* and the server are on time: time does not pass while a renewal is due  *)
(* and not sent, or sent and not answered (OnTime; a configuration that    *)
(* checks WatchSpec's properties makes its Tick wait for OnTime).  A       *)
(* renewal that is late or lost is not covered here: the property suite    *)
(* and LossIsReported hold what happens then.                              *)
(***************************************************************************)
Due(a) == Observed(a) = "ACTIVE" /\ Quiet(a) /\ Deadline(a) - cnow <= 1   \* a's renewal is due.

RenewNow(a) == Due(a) /\ \E l \in Lane, t \in Ttl : Renew(a, l, t)   \* The watchdog renews a.

OnTime == \A a \in Attempt : ~Due(a) /\ \A l \in Lane : call[a][l].kind # "renew"   \* Time may pass.

WatchSpec == LiveSpec /\ \A a \in Attempt : WF_vars(RenewNow(a))   \* LiveSpec with the watchdog fair.

(* 21. The watchdog renews when due: a renewal does not stay due, it is    *)
(* sent (unless its caller's own call ends the lease first).               *)
RenewedWhenDue == \A a \in Attempt : Due(a) ~> ~Due(a)

(* 22. A watched lease stays ACTIVE: time alone never ends it (a tick      *)
(* leaves an ACTIVE handle of an attempt with nothing in flight ACTIVE).   *)
(* Its caller's own replay, renew or release may: the watchdog cannot      *)
(* renew while one is in flight, and plans from its last renewal.          *)
WatchedStaysActive ==
    [][\A a \in Attempt : TickStep /\ Observed(a) = "ACTIVE" /\ Quiet(a) => Observed(a)' = "ACTIVE"]_vars

THEOREM Spec => /\ [](TypeOK /\ NoInheritance /\ ActiveHoldsKey /\ ValidityWithinServerLease
                      /\ MutualExclusion /\ TerminalStays /\ FencedEffects /\ NoLeaseLeftBehind)
                /\ StateOutcomeAgreement /\ ReplayNeverExtends /\ CertaintyIsHonest
                /\ NoSendAfterEnd /\ BudgetWithinTtl /\ UnknownGrowsOnlyOnSuccess /\ LossIsReported
                /\ StaleReplyChangesNoHandle
    \* For Faults without Failover/Restart; with them, only FencedEffects (for Durability
    \* "ClockFloor" when every tick has fewer grants than TokensPerTick, and for "ReplicaAck"
    \* without Restart) and the step properties.  (A failover that promotes an older copy
    \* of an attempt's key after its release leaves that key behind by nature.)
THEOREM LiveSpec => ExpiredLeaseComesFree /\ EveryCallReturns /\ UnknownIsSettled
    \* For Faults without Failover, Restart and Delay (a delayed request may run at any
    \* time, or never).
THEOREM WatchSpec => RenewedWhenDue /\ WatchedStaysActive
    \* For Faults = {} (a refused or lost renewal is not an answer in time), with Tick
    \* taking place only OnTime.
THEOREM WaitSpec => WaitLoopWakes /\ WaiterIsGranted
    \* WaiterIsGranted for Faults = {} (a lost reply, a refusal or a failover may answer
    \* every try of a waiter, for ever).
=============================================================================
