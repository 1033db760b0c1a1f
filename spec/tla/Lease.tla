------------------------------- MODULE Lease -------------------------------
(***************************************************************************)
(* The Leasehold lease protocol for ONE resource (one lease key and one    *)
(* fencing counter in one Redis slot) and several attempts.  An attempt is *)
(* one owner token bound to one operation id (RedisLeaseAdapter.newAttempt);*)
(* its Redis value is ownerToken:operationId.                              *)
(*                                                                         *)
(* What is modelled:                                                       *)
(*  - a discrete server clock `now` with Redis's key expiry (a key is     *)
(*    gone once now > expiry: at now = expiry it is still there with PTTL  *)
(*    0, which the client treats as no budget left);                       *)
(*  - the four Lua scripts acquire.lua, renew.lua, release.lua, inspect.lua*)
(*    as atomic server actions;                                            *)
(*  - each client call as send -> (apply | refuse) -> (reply | lost reply) *)
(*    -> outcome, where the client may give up (Indeterminate) and the    *)
(*    request may still be applied afterwards (a delayed request);         *)
(*  - the client's handle: stored state, local deadline on the client's   *)
(*    monotonic clock measured from before the send, fencing token, and    *)
(*    the per-attempt pending bookkeeping of notes/PROTOCOL.md;            *)
(*  - a client clock that may fall behind the server clock by at most      *)
(*    Drift ticks (it never runs ahead: running ahead is only safer);      *)
(*  - a fenced effect store (FencedStore.write in the chaos module) and    *)
(*    a paused client that writes to it on stale belief;                   *)
(*  - a failover (promotes the last replicated state) and a restart (an    *)
(*    empty server), both of which lose recent writes, with the three      *)
(*    durability modes of the fencing counter;                             *)
(*  - the seed system's defects, each behind a flag in Defects, so that    *)
(*    the MC*.tla configurations can show each counterexample.             *)
(*                                                                         *)
(* What is omitted: liveness (only safety properties are stated), the      *)
(* wait loop's sleeping (a retry is just another Replay), the byte format  *)
(* of keys and tokens, more than one handle per attempt (a Replay is only  *)
(* taken while the attempt has no handle: that is the wait loop and the    *)
(* retry after Indeterminate), and a client clock running fast.  Calls     *)
(* that are rejected before any I/O (TTL <= drift, connection known down   *)
(* -> Unavailable) and calls on a LOST/RELEASED handle (NotActive, nothing *)
(* sent) change nothing, so they are stuttering steps and do not appear.   *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Attempt,     \* The attempts (model values); each is ownerToken:operationId.
    Owner,       \* The owner tokens (model values).
    OwnerOf,     \* OwnerOf[a] is the owner token of attempt a.
    None,        \* A model value that is not an attempt: "the key is absent".
    Ttl,         \* The TTLs, in ticks, that a caller may ask for in tryAcquire/renew.
    Drift,       \* The drift budget in ticks (LeaseRequest/adapter driftBudget).
    MaxTime,     \* Bound of the server clock, used only by StateConstraint.
    MaxGrants,   \* Bound of the number of grants, used only by StateConstraint.
    MaxInFlight, \* Bound of the calls awaiting their reply at once, used only by StateConstraint.
    MaxDelayed,  \* Bound of the delayed requests at once, used only by StateConstraint.
    MaxCalls,    \* Bound of the calls the clients send in all, used only by StateConstraint.
    Faults,      \* The faults that may happen, a subset of FaultNames.
    Durability,  \* How the fencing counter survives failover: "Plain", "ClockFloor" or "ReplicaAck".
    Defects      \* The seed defects switched back on, a subset of DefectNames ({} = the fixed protocol).

(***************************************************************************)
(* The names of the faults and of the seed defects.                        *)
(***************************************************************************)
FaultNames ==
    { "LoseReply",   \* a reply is lost after the script ran (LoseReply)
      "Delay",       \* a request is still in flight when the client gives up, and is applied later
      "Refuse",      \* the server refuses a request before running it (BUSY, LOADING, ...)
      "Pause",       \* a paused client writes to the fenced store on stale belief (Effect)
      "Failover",    \* a replica with an older state is promoted (Replicate, Failover)
      "Restart" }    \* the server restarts empty (Restart)

DefectNames ==
    { "ReplayFullTtl",        \* seed #3: a replay's budget is ttl - drift, not replyPTTL - drift
      "RenewAfterLost",       \* seed #4: renew has no state precondition and does not restore ACTIVE
      "LocalExpiryNotStored", \* seed #4: state() returns LOST on local expiry without storing it
      "TtlCheckAfterSend",    \* seed: TTL <= drift is rejected only after the script ran
      "TrustAmbiguousRenew",  \* an Indeterminate (maybe shorter) renew leaves the handle ACTIVE with its old deadline
      "NoPendingBookkeeping", \* the per-attempt minPendingTtl / releasePending are not kept
      "ReplayExtends",        \* the ACQUIRE script extends the TTL on a replay (status 2)
      "OwnerOnlyCompare" }    \* the ACQUIRE script compares only the owner token, not the whole value

Durabilities == {"Plain", "ClockFloor", "ReplicaAck"}

ASSUME /\ \A a \in Attempt : OwnerOf[a] \in Owner
       /\ None \notin Attempt
       /\ Ttl \subseteq Nat \ {0} /\ Ttl # {}
       /\ Drift \in Nat
       /\ MaxTime \in Nat /\ MaxGrants \in Nat /\ MaxInFlight \in Nat /\ MaxDelayed \in Nat /\ MaxCalls \in Nat
       /\ Faults \subseteq FaultNames
       /\ Durability \in Durabilities
       /\ Defects \subseteq DefectNames

Min(x, y) == IF x <= y THEN x ELSE y
Max(x, y) == IF x >= y THEN x ELSE y

MaxTtl == CHOOSE t \in Ttl : \A u \in Ttl : u <= t  \* The longest TTL a caller may ask for.
NoPending == MaxTtl + 1     \* Stands for +infinity in minPendingTtl: no ambiguous renew so far.

(***************************************************************************)
(* ClockFloor issues token = max(counter + 1, serverTime).  We scale the   *)
(* server clock: one tick is TokensPerTick microseconds, and the state     *)
(* constraint allows at most MaxGrants < TokensPerTick grants in all.      *)
(* This encodes the real-world assumptions exactly: at most one grant per  *)
(* microsecond, the server clock does not go back across a failover or     *)
(* restart, and a failover or restart takes at least one tick.             *)
(***************************************************************************)
TokensPerTick == MaxGrants + 1

(* Tokens matter only to the fenced store, i.e. when clients may write     *)
(* effects (Pause).  Otherwise handles keep token 0, which keeps the state *)
(* space small; the server's counter is modelled in every configuration.   *)
TrackTokens == "Pause" \in Faults

HandleStates == {"NONE", "ACTIVE", "UNKNOWN", "LOST", "RELEASED"}  \* "NONE": no handle yet
Terminal == {"LOST", "RELEASED"}                                     \* states that never change again
Kinds == {"acquire", "renew", "release"}                             \* the mutating scripts

NoReply == [status |-> 0, pttl |-> 0, token |-> 0, grant |-> 0, same |-> FALSE]
                            \* The reply field of a call whose reply has not come yet.
NoCall == [kind |-> "none", ttl |-> 0, start |-> 0, phase |-> "idle", reply |-> NoReply]
                            \* An attempt with no outstanding call.
Empty == [holder |-> None, expiry |-> 0, fence |-> 0, grant |-> 0]
                            \* A server with neither the lease key nor the fencing counter.

-----------------------------------------------------------------------------
VARIABLES
    now,      \* The server clock, in ticks.
    lag,      \* How far the client's monotonic clock is behind the server clock (0..Drift, never decreasing).
    srv,      \* The server: [holder, expiry, fence, grant]; grant is a ghost (the grant id of the key).
    replica,  \* The last replicated copy of srv: what a Failover promotes.
    call,     \* call[a]: the outstanding call of attempt a (NoCall if none).
    sent,     \* sent[a]: a tryAcquire of a was sent before, so the next send is a Replay.
    hs,       \* hs[a]: the stored state of a's handle (RedisLeaseHandle.state field); "NONE" before one exists.
    dl,       \* dl[a]: the handle's local deadline on the client's monotonic clock.
    tok,      \* tok[a]: the handle's fencing token (RedisLeaseHandle.fencingToken).
    hgrant,   \* Ghost: hgrant[a] is the grant id behind a's handle.
    minPend,  \* minPend[a]: minPendingTtl of attempt a (NoPending = +infinity).
    relPend,  \* relPend[a]: releasePending of attempt a.
    seen,     \* Ghost: seen[a] is the terminal state that was last reported to a's caller, or "NONE".
    delayed,  \* The requests whose client gave up but that may still reach the server.
    storeHigh,\* The fenced effect store: the highest token it accepted (0 at first).
    storeLast,\* Ghost: the grant id behind the last write the store accepted.
    storeMax, \* Ghost: the highest grant id behind any write the store accepted.
    grants,   \* Ghost: how many grants ACQUIRE made so far (= the id of the latest grant).
    calls     \* Ghost: how many calls the clients sent so far (bounded by StateConstraint).

vars == <<now, lag, srv, replica, call, sent, hs, dl, tok, hgrant, minPend, relPend, seen,
          delayed, storeHigh, storeLast, storeMax, grants, calls>>
handleVars == <<hs, dl, tok, hgrant, minPend, relPend, seen>>   \* The client-side handle fields.
storeVars == <<storeHigh, storeLast, storeMax>>                  \* The fenced effect store.

cnow == now - lag      \* The client's monotonic clock (System.nanoTime in Java).

(***************************************************************************)
(* The local deadline the handle relies on now.  A renew's effect may      *)
(* begin as soon as it is sent (it may shorten the lease), so while a      *)
(* renew(ttl) is in flight the deadline is min(dl, start + ttl - drift).   *)
(* TrustAmbiguousRenew trusts the old deadline instead.                    *)
(***************************************************************************)
Deadline(a) == IF call[a].kind = "renew" /\ "TrustAmbiguousRenew" \notin Defects
               THEN Min(dl[a], call[a].start + call[a].ttl - Drift)
               ELSE dl[a]

(***************************************************************************)
(* What RedisLeaseHandle.state() returns now: a stored ACTIVE or UNKNOWN   *)
(* whose local deadline has passed reads as LOST; an ACTIVE handle whose   *)
(* release is in flight reads as UNKNOWN (the key may be gone already).    *)
(***************************************************************************)
Observed(a) == IF hs[a] \in {"ACTIVE", "UNKNOWN"} /\ cnow >= Deadline(a) THEN "LOST"
               ELSE IF hs[a] = "ACTIVE" /\ call[a].kind = "release" THEN "UNKNOWN"
               ELSE hs[a]

(***************************************************************************)
(* Server s at time t: Redis forgets a key once its clock is past the      *)
(* key's expiry (expire.c: now > when), so during its last tick the key is *)
(* still there with PTTL 0.  The fencing counter has no TTL.              *)
(***************************************************************************)
Expired(s, t) == IF s.holder # None /\ t > s.expiry THEN [Empty EXCEPT !.fence = s.fence] ELSE s

Request == [a : Attempt, kind : Kinds, ttl : Nat]   \* A request in flight: no reply is awaited.

Reply == [status : Int, pttl : Int, token : Nat, grant : Nat, same : BOOLEAN]
Call == [kind : Kinds \cup {"none"}, ttl : Nat, start : Nat,
         phase : {"idle", "sent", "replied", "refused", "lost"}, reply : Reply]
        \* phase: sent (in flight), replied (applied, reply on its way), refused (not applied,
        \* the refusal on its way), lost (applied, the reply will never arrive).

TypeOK ==
    /\ now \in Nat /\ lag \in 0..Drift
    /\ srv \in [holder : Attempt \cup {None}, expiry : Nat, fence : Nat, grant : Nat]
    /\ replica \in [holder : Attempt \cup {None}, expiry : Nat, fence : Nat, grant : Nat]
    /\ call \in [Attempt -> Call]
    /\ sent \in [Attempt -> BOOLEAN]
    /\ hs \in [Attempt -> HandleStates]
    /\ dl \in [Attempt -> Int]
    /\ tok \in [Attempt -> Nat] /\ hgrant \in [Attempt -> Nat]
    /\ minPend \in [Attempt -> 1..NoPending]
    /\ relPend \in [Attempt -> BOOLEAN]
    /\ seen \in [Attempt -> {"NONE"} \cup Terminal]
    /\ delayed \subseteq Request
    /\ storeHigh \in Nat /\ storeLast \in Nat /\ storeMax \in Nat
    /\ grants \in Nat

Init ==
    /\ now = 0 /\ lag = 0
    /\ srv = Empty /\ replica = Empty
    /\ call = [a \in Attempt |-> NoCall]
    /\ sent = [a \in Attempt |-> FALSE]
    /\ hs = [a \in Attempt |-> "NONE"]
    /\ dl = [a \in Attempt |-> 0]
    /\ tok = [a \in Attempt |-> 0] /\ hgrant = [a \in Attempt |-> 0]
    /\ minPend = [a \in Attempt |-> NoPending]
    /\ relPend = [a \in Attempt |-> FALSE]
    /\ seen = [a \in Attempt |-> "NONE"]
    /\ delayed = {}
    /\ storeHigh = 0 /\ storeLast = 0 /\ storeMax = 0
    /\ grants = 0 /\ calls = 0

-----------------------------------------------------------------------------
(***************************************************************************)
(* We now define the server scripts.  Each takes the server state s and    *)
(* returns <<new server state, reply>>; they are atomic (one EVALSHA).     *)
(***************************************************************************)

(* Whether the key's value h is "the same value" as attempt a.  The fixed  *)
(* scripts compare the whole ownerToken:operationId.                       *)
SameValue(h, a) == IF "OwnerOnlyCompare" \in Defects
                   THEN h # None /\ OwnerOf[h] = OwnerOf[a]
                   ELSE h = a

(* Whether acquire.lua, run now for attempt a, takes its replay branch.    *)
ReplayBranch(a) == srv.holder # None /\ SameValue(srv.holder, a)

(* The next fencing token, issued by acquire.lua in the same script.       *)
NextToken(s) == IF Durability = "ClockFloor"
                THEN Max(s.fence + 1, now * TokensPerTick)
                ELSE s.fence + 1

(* acquire.lua: absent -> SET value PX ttl and issue a token (status 1);   *)
(* same value -> status 2 with the current PTTL and token, no extension;   *)
(* other value -> status 0 with PTTL and whether the owner token is shared.*)
AcquireScript(s, a, t) ==
    IF s.holder = None
    THEN LET tk == NextToken(s) IN
         << [holder |-> a, expiry |-> now + t, fence |-> tk, grant |-> grants + 1],
            [status |-> 1, pttl |-> t, token |-> tk, grant |-> grants + 1, same |-> TRUE] >>
    ELSE IF SameValue(s.holder, a)
    THEN << IF "ReplayExtends" \in Defects THEN [s EXCEPT !.expiry = now + t] ELSE s,
            [status |-> 2, pttl |-> s.expiry - now, token |-> s.fence, grant |-> s.grant,
             same |-> TRUE] >>
    ELSE << s, [status |-> 0, pttl |-> 0, token |-> 0, grant |-> 0,
                same |-> OwnerOf[s.holder] = OwnerOf[a]] >>
    \* (Status 0 also carries PTTL as retryAfter; the wait loop's sleeping is
    \* not modelled, so the reply keeps 0 there.)

(* renew.lua: absent -> 0; other value -> -1; same -> PEXPIRE ttl (which   *)
(* may shorten the lease) and 1.                                           *)
RenewScript(s, a, t) ==
    IF s.holder = None THEN << s, [NoReply EXCEPT !.status = 0] >>
    ELSE IF SameValue(s.holder, a)
    THEN << [s EXCEPT !.expiry = now + t], [NoReply EXCEPT !.status = 1] >>
    ELSE << s, [NoReply EXCEPT !.status = -1] >>

(* release.lua: same value -> DEL and 1; absent -> 0; other -> -1.         *)
ReleaseScript(s, a) ==
    IF s.holder = None THEN << s, [NoReply EXCEPT !.status = 0] >>
    ELSE IF SameValue(s.holder, a)
    THEN << [Empty EXCEPT !.fence = s.fence], [NoReply EXCEPT !.status = 1] >>
    ELSE << s, [NoReply EXCEPT !.status = -1] >>

(* inspect.lua: read-only.  What RedisLeaseAdapter.inspect reports to a:   *)
(* Held(holderIsThisAttempt, remaining, fencingToken) or Absent.           *)
InspectReply(a) ==
    IF srv.holder = None THEN [held |-> FALSE, mine |-> FALSE, pttl |-> 0, token |-> 0]
    ELSE [held |-> TRUE, mine |-> srv.holder = a, pttl |-> srv.expiry - now, token |-> srv.fence]

Script(s, a, k, t) == CASE k = "acquire" -> AcquireScript(s, a, t)
                        [] k = "renew"   -> RenewScript(s, a, t)
                        [] k = "release" -> ReleaseScript(s, a)

(* Grants made by a script with reply r: one if it issued a token.         *)
GrantsAfter(k, r) == IF k = "acquire" /\ r.status = 1 THEN grants + 1 ELSE grants

-----------------------------------------------------------------------------
(* Once a handle is LOST or RELEASED nothing reads its deadline or the     *)
(* attempt's pending bookkeeping again (no further handle of the attempt   *)
(* is modelled): we reset them, which keeps the state space small and      *)
(* changes no behaviour.  Its token tk (grant g) is still read by a paused *)
(* client's Effect, so it is kept, also for a handle that is LOST as soon  *)
(* as it is made (a replay with no time left).                             *)
Retire(a, st, tk, g) ==
    /\ dl' = [dl EXCEPT ![a] = 0]
    /\ minPend' = [minPend EXCEPT ![a] = NoPending]
    /\ relPend' = [relPend EXCEPT ![a] = FALSE]
    /\ seen' = [seen EXCEPT ![a] = st]
    /\ tok' = [tok EXCEPT ![a] = IF TrackTokens THEN tk ELSE 0]
    /\ hgrant' = [hgrant EXCEPT ![a] = IF TrackTokens THEN g ELSE 0]

(* Sets handle a to state st with deadline d, token tk and grant g.        *)
SetHandle(a, st, d, tk, g) ==
    /\ hs' = [hs EXCEPT ![a] = st]
    /\ IF st \in Terminal
       THEN Retire(a, st, tk, g)
       ELSE /\ dl' = [dl EXCEPT ![a] = d]
            /\ tok' = [tok EXCEPT ![a] = IF TrackTokens THEN tk ELSE 0]
            /\ hgrant' = [hgrant EXCEPT ![a] = IF TrackTokens THEN g ELSE 0]
            /\ UNCHANGED <<minPend, relPend, seen>>

(***************************************************************************)
(* We now define the client's calls.  A call starts with a send, measured  *)
(* from start = the client's clock before the send.                        *)
(***************************************************************************)

(* The send of a call of kind k with TTL t by attempt a.                   *)
Send(a, k, t) == /\ call' = [call EXCEPT ![a] = [kind |-> k, ttl |-> t, start |-> cnow,
                                                phase |-> "sent", reply |-> NoReply]]
                 /\ calls' = calls + 1

(* A TTL the client accepts: TTL <= drift is rejected before any I/O (a    *)
(* stuttering step).  The seed (TtlCheckAfterSend) sent it and threw only  *)
(* after the script ran, see Deliver.                                      *)
TtlOk(t) == t > Drift \/ "TtlCheckAfterSend" \in Defects

(* RedisLeaseAdapter.newAttempt: a fresh owner token bound to an operation *)
(* id.  Purely local, so a stuttering step here: the attempts exist from   *)
(* the start as model values.                                              *)
NewAttempt(a) == ~sent[a] /\ UNCHANGED vars

(* RedisLeaseAdapter.tryAcquire, first send of attempt a with TTL t.       *)
(* A TTL <= drift is rejected before any I/O (a stuttering step).          *)
TryAcquire(a, t) ==
    /\ ~sent[a] /\ call[a] = NoCall
    /\ TtlOk(t)
    /\ sent' = [sent EXCEPT ![a] = TRUE]
    /\ Send(a, "acquire", t)
    /\ UNCHANGED <<now, lag, srv, replica, handleVars, delayed, storeVars, grants>>

(* RedisLeaseAdapter.tryAcquire again with the same LeaseAttempt: after    *)
(* Indeterminate, or the wait loop's retry after Contended.                *)
Replay(a, t) ==
    /\ sent[a] /\ hs[a] = "NONE" /\ call[a] = NoCall
    /\ TtlOk(t)
    /\ Send(a, "acquire", t)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* Whether a's handle may send a renew: not LOST/RELEASED (also not by     *)
(* local expiry) and no release of the attempt pending.  The seed had no   *)
(* precondition at all.                                                    *)
CanRenew(a) ==
    IF "RenewAfterLost" \in Defects THEN hs[a] # "NONE"
    ELSE /\ hs[a] \in {"ACTIVE", "UNKNOWN"} /\ Observed(a) # "LOST"
         /\ ~relPend[a] \/ "NoPendingBookkeeping" \in Defects

(* RedisLeaseHandle.renew(ttl): sends renew.lua.  On a LOST/RELEASED       *)
(* handle it returns NotActive and sends nothing (a stuttering step).      *)
Renew(a, t) ==
    /\ call[a] = NoCall /\ CanRenew(a)
    /\ TtlOk(t)
    /\ Send(a, "renew", t)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* RedisLeaseHandle.release(): sends release.lua.  On a LOST/RELEASED      *)
(* handle it returns NotActive and sends nothing (a stuttering step).      *)
Release(a) ==
    /\ call[a] = NoCall
    /\ hs[a] \in {"ACTIVE", "UNKNOWN"} /\ Observed(a) # "LOST"
    /\ Send(a, "release", 0)
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants>>

(* RedisLeaseAdapter.inspect: inspect.lua is read-only and the outcome     *)
(* changes no handle, so this is a stuttering step.  A trace checker can   *)
(* compare the Java result with InspectReply(a).                           *)
Inspect(a) == UNCHANGED vars

(* RedisLeaseHandle.state(): on local expiry, store LOST (it is terminal). *)
(* The seed (LocalExpiryNotStored) returned LOST without storing it.       *)
State(a) ==
    /\ hs[a] \in {"ACTIVE", "UNKNOWN"} /\ cnow >= Deadline(a)
    /\ IF "LocalExpiryNotStored" \in Defects
       THEN /\ seen[a] # "LOST"
            /\ seen' = [seen EXCEPT ![a] = "LOST"]
            /\ UNCHANGED <<hs, dl, tok, hgrant, minPend, relPend>>
       ELSE SetHandle(a, "LOST", 0, tok[a], hgrant[a])
    /\ UNCHANGED <<now, lag, srv, replica, call, sent, delayed, storeVars, grants, calls>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* We now define the server's side of a call and the faults.               *)
(***************************************************************************)

(* The server runs the script of a's outstanding request (Lua via EVALSHA):*)
(* acquire.lua, renew.lua or release.lua; the reply is on its way.         *)
Apply(a) ==
    /\ call[a].phase = "sent"
    /\ LET c == call[a]
           r == Script(srv, a, c.kind, c.ttl) IN
       /\ srv' = r[1]
       /\ call' = [call EXCEPT ![a] = [c EXCEPT !.phase = "replied", !.reply = r[2]]]
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

(* The server refuses a's request before running it (BUSY, OOM, LOADING,   *)
(* MASTERDOWN, TRYAGAIN): it is definitely not applied.                    *)
Refuse(a) ==
    /\ "Refuse" \in Faults
    /\ call[a].phase = "sent"
    /\ call' = [call EXCEPT ![a].phase = "refused"]
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants, calls>>

(* The reply to a's request is lost after the script ran.                  *)
LoseReply(a) ==
    /\ "LoseReply" \in Faults
    /\ call[a].phase = "replied"
    /\ call' = [call EXCEPT ![a].phase = "lost"]
    /\ UNCHANGED <<now, lag, srv, replica, sent, handleVars, delayed, storeVars, grants, calls>>

(* The client gives up on its call (command timeout, connection lost after *)
(* the write): the outcome is Indeterminate.  If the request had not run   *)
(* yet, it may still run later (Delay).  An ambiguous renew makes the      *)
(* handle UNKNOWN with deadline min(old, start + ttl - drift) and records  *)
(* minPendingTtl; an ambiguous release makes it UNKNOWN with               *)
(* releasePending.  LOST and RELEASED stay.                                *)
Timeout(a) ==
    LET c == call[a]
        h == IF hs[a] \in Terminal THEN hs[a] ELSE "UNKNOWN"
        keep == "NoPendingBookkeeping" \in Defects IN
    /\ \/ c.phase = "lost"
       \/ c.phase = "sent" /\ "Delay" \in Faults
    /\ delayed' = IF c.phase = "sent"
                  THEN delayed \cup {[a |-> a, kind |-> c.kind, ttl |-> c.ttl]}
                  ELSE delayed
    /\ call' = [call EXCEPT ![a] = NoCall]
    /\ CASE c.kind = "acquire" ->
              UNCHANGED handleVars
         [] c.kind = "renew" /\ "TrustAmbiguousRenew" \in Defects ->
              UNCHANGED handleVars
         [] c.kind = "renew" ->
              /\ hs' = [hs EXCEPT ![a] = h]
              /\ dl' = [dl EXCEPT ![a] = IF h \in Terminal THEN dl[a]
                                         ELSE Min(dl[a], c.start + c.ttl - Drift)]
              /\ minPend' = [minPend EXCEPT ![a] = IF keep THEN minPend[a]
                                                   ELSE Min(minPend[a], c.ttl)]
              /\ UNCHANGED <<tok, hgrant, relPend, seen>>
         [] c.kind = "release" ->
              /\ hs' = [hs EXCEPT ![a] = h]
              /\ relPend' = [relPend EXCEPT ![a] = ~keep]
              /\ UNCHANGED <<dl, tok, hgrant, minPend, seen>>
    /\ UNCHANGED <<now, lag, srv, replica, sent, storeVars, grants, calls>>

(***************************************************************************)
(* Deliver(a): the reply (or refusal) reaches the client and the call      *)
(* returns its outcome.  This is where the client side of                  *)
(* RedisLeaseAdapter.tryAcquire, RedisLeaseHandle.renew and                *)
(* RedisLeaseHandle.release is modelled.                                   *)
(***************************************************************************)

(* The handle state for a new local deadline d: ACTIVE only if it is still *)
(* in the future, UNKNOWN while a release of the attempt is pending.       *)
Fresh(a, d) == IF d <= cnow THEN "LOST"
               ELSE IF relPend[a] /\ "NoPendingBookkeeping" \notin Defects THEN "UNKNOWN"
               ELSE "ACTIVE"

(* min(ttl, minPendingTtl), or just ttl without the pending bookkeeping.   *)
Cap(a, t) == IF "NoPendingBookkeeping" \in Defects THEN t ELSE Min(t, minPend[a])

(* What the server's reply says is left of the lease: a replay (status 2) *)
(* gets min(request TTL, reply PTTL), a grant or a renew the request TTL.  *)
Granted(a) == IF call[a].kind = "acquire" /\ call[a].reply.status = 2
              THEN Min(call[a].ttl, call[a].reply.pttl) ELSE call[a].ttl

(* The local deadline that a reply to a's call gives: measured from start, *)
(* the client's clock before the send, the granted time (ReplayFullTtl:    *)
(* the request TTL) capped by minPendingTtl, less the drift budget.        *)
NewDeadline(a) ==
    LET budget == IF "ReplayFullTtl" \in Defects THEN call[a].ttl ELSE Granted(a) IN
    call[a].start + Cap(a, budget) - Drift

(* What RedisLeaseHandle.observedServerExpiry reports once a's reply is    *)
(* delivered: the server's expiry as the reply shows it, on the client's   *)
(* clock (the model's wall clock), measured from before the send, with     *)
(* neither the drift budget nor minPendingTtl taken off (seed #6 reported  *)
(* the local budget instead).  No action reads it; trace validation        *)
(* compares the Java value with it.                                        *)
ObservedExpiry(a) == call[a].start + Granted(a)

(* The outcome a's call returns when its reply (or refusal) is delivered   *)
(* now: the names of the Java outcome records.                             *)
ResultOf(a) ==
    LET c == call[a]
        r == c.reply IN
    CASE c.phase = "refused" -> "Overloaded"
      [] c.ttl <= Drift /\ c.kind # "release" -> "Rejected"   \* TtlCheckAfterSend only
      [] c.kind = "acquire" ->
            CASE r.status = 1 -> "Acquired"
              [] r.status = 2 -> "ReplayedSameOperation"
              [] r.same       -> "OwnerOperationConflict"
              [] OTHER        -> "Contended"
      [] c.kind = "renew" ->
            CASE r.status = 1 /\ "RenewAfterLost" \in Defects -> "Renewed"
              [] r.status = 1 /\ hs[a] \notin Terminal
                              /\ Fresh(a, NewDeadline(a)) = "ACTIVE" -> "Renewed"
              [] OTHER -> "Lost"
      [] c.kind = "release" ->
            CASE r.status = 1 -> "Released"
              [] r.status = 0 -> "AlreadyAbsent"
              [] OTHER        -> "NotOwner"


(* Status 1 or 2 makes the handle (ACTIVE, or LOST if the budget is spent, *)
(* or UNKNOWN while a release is pending); status 0 makes none.            *)
DeliverAcquire(a) ==
    LET r == call[a].reply
        d == NewDeadline(a) IN
    IF r.status \in {1, 2}
    THEN SetHandle(a, Fresh(a, d), d, r.token, r.grant)
    ELSE UNCHANGED handleVars

(* Status 1 makes the handle ACTIVE again with the new budget, unless it   *)
(* went LOST meanwhile (it stays LOST); 0 or -1 makes it LOST.  The seed   *)
(* (RenewAfterLost) replaced the budget and kept the state field.          *)
DeliverRenew(a) ==
    LET c == call[a]
        d == NewDeadline(a) IN
    CASE c.reply.status = 1 /\ "RenewAfterLost" \in Defects ->
            /\ dl' = [dl EXCEPT ![a] = d]
            /\ UNCHANGED <<hs, tok, hgrant, minPend, relPend, seen>>
      [] c.reply.status = 1 /\ hs[a] \in Terminal ->
            UNCHANGED handleVars
      [] c.reply.status = 1 ->
            SetHandle(a, Fresh(a, d), d, tok[a], hgrant[a])
      [] hs[a] \in Terminal ->
            UNCHANGED handleVars
      [] OTHER ->
            SetHandle(a, "LOST", 0, tok[a], hgrant[a])

(* 1 (Released) and 0 (AlreadyAbsent) make the handle RELEASED, -1         *)
(* (NotOwner) LOST; a handle that went LOST meanwhile stays LOST.          *)
DeliverRelease(a) ==
    LET r == call[a].reply
        st == IF r.status \in {0, 1} THEN "RELEASED" ELSE "LOST" IN
    IF hs[a] \in Terminal THEN UNCHANGED handleVars
    ELSE SetHandle(a, st, 0, tok[a], hgrant[a])

(* With ReplicaAck, a token is reported only after WAIT saw the replica    *)
(* take it: the reply of a grant (status 1) or a replay (status 2, whose   *)
(* grant may have come from a delayed request) waits until the replica's  *)
(* counter reached the token.                                              *)
Acked(a) == \/ Durability # "ReplicaAck"
            \/ call[a].kind # "acquire" \/ call[a].reply.status \notin {1, 2}
            \/ replica.fence >= call[a].reply.token

(* The reply reaches the client: RedisLeaseAdapter.tryAcquire,            *)
(* RedisLeaseHandle.renew or RedisLeaseHandle.release returns ResultOf(a). *)
(* A refusal (Overloaded) and the seed's late TTL exception (Rejected)     *)
(* change no handle.                                                       *)
Deliver(a) ==
    /\ call[a].phase \in {"replied", "refused"}
    /\ Acked(a)
    /\ call' = [call EXCEPT ![a] = NoCall]
    /\ IF ResultOf(a) \in {"Overloaded", "Rejected"}
       THEN UNCHANGED handleVars
       ELSE CASE call[a].kind = "acquire" -> DeliverAcquire(a)
              [] call[a].kind = "renew"   -> DeliverRenew(a)
              [] call[a].kind = "release" -> DeliverRelease(a)
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
DropReplies == [a \in Attempt |-> IF call[a].phase = "replied"
                                  THEN [call[a] EXCEPT !.phase = "lost"] ELSE call[a]]

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
Next ==
    \/ \E a \in Attempt, t \in Ttl : TryAcquire(a, t) \/ Replay(a, t) \/ Renew(a, t)
    \/ \E a \in Attempt : \/ Release(a) \/ State(a) \/ Apply(a) \/ Refuse(a)
                          \/ LoseReply(a) \/ Timeout(a) \/ Deliver(a) \/ Effect(a)
    \/ \E m \in delayed : ApplyLate(m)
    \/ \E d \in {0, 1} : Tick(d)
    \/ Replicate \/ Failover \/ Restart

Spec == Init /\ [][Next]_vars

(* Keeps the state space finite and small: time and grants are bounded,    *)
(* and so are the calls in flight at once and the delayed requests.  A     *)
(* script runs atomically, so two clients' calls in flight at once add     *)
(* only interleavings of their sends and replies; the races that matter    *)
(* (a delayed request against a later call, expiry and local expiry       *)
(* during a call) remain with one call in flight.                          *)
StateConstraint ==
    /\ now <= MaxTime /\ grants <= MaxGrants
    /\ Cardinality({a \in Attempt : call[a] # NoCall}) <= MaxInFlight
    /\ Cardinality(delayed) <= MaxDelayed
    /\ calls <= MaxCalls

-----------------------------------------------------------------------------
(***************************************************************************)
(* The invariants of CONTRACT.md.  The state predicates are checked as    *)
(* INVARIANTs; the three that speak about one step (an outcome and the     *)
(* state right after it, a script run) are action properties [][...]_vars *)
(* checked as PROPERTYs.                                                   *)
(***************************************************************************)

(* 1. Whenever state() says ACTIVE, the server holds this attempt's value  *)
(* and will not expire it before the handle's local deadline.  The client  *)
(* clock is the server clock minus lag, and lag may still grow up to       *)
(* Drift, so the deadline on the client clock is reached at server time    *)
(* Deadline(a) + Drift at the latest: the key must live until then.        *)
ValidityWithinServerLease ==
    \A a \in Attempt : Observed(a) = "ACTIVE" =>
        /\ srv.holder = a
        /\ Deadline(a) + Drift <= srv.expiry

(* 2. At most one handle of the resource says ACTIVE at any instant.       *)
MutualExclusion ==
    \A a, b \in Attempt : Observed(a) = "ACTIVE" /\ Observed(b) = "ACTIVE" => a = b

(* The step returns a's call with the reply (or refusal) it got.           *)
Delivered(a) == call[a].phase \in {"replied", "refused"} /\ call'[a] = NoCall

(* Outcome o agrees with state st that state() returns right after it.     *)
(* (A handle that went LOST during a release call stays LOST.)             *)
Agrees(o, st) == CASE o = "Renewed"                       -> st = "ACTIVE"
                   [] o \in {"Lost", "NotOwner"}          -> st = "LOST"
                   [] o \in {"Released", "AlreadyAbsent"} -> st \in Terminal
                   [] OTHER                               -> TRUE

(* Once a caller was told LOST or RELEASED, state() keeps saying so.       *)
TerminalStays == \A a \in Attempt : seen[a] # "NONE" => Observed(a) = seen[a]

(* 3. No outcome contradicts the handle's state; LOST and RELEASED stay.   *)
StateOutcomeAgreement ==
    /\ []TerminalStays
    /\ [][\A a \in Attempt : Delivered(a) => Agrees(ResultOf(a), Observed(a)')]_vars

(* 4. An ACQUIRE that found this attempt's own value (a replay, whether    *)
(* the client still waits for it or not) leaves the server's expiry as it  *)
(* was.                                                                    *)
ReplayNeverExtends ==
    [][ /\ \A a \in Attempt : call[a].phase = "sent" /\ call'[a].phase = "replied"
                              /\ call[a].kind = "acquire" /\ ReplayBranch(a)
                              => srv'.expiry = srv.expiry
        /\ \A m \in delayed \ delayed' : m.kind = "acquire" /\ ReplayBranch(m.a)
                              => srv'.expiry = srv.expiry ]_vars

(* 5. A handle never says ACTIVE while the key holds another operation of  *)
(* the same owner: the same owner token with another operation id never    *)
(* inherits the lease.                                                     *)
NoInheritance ==
    \A a \in Attempt : Observed(a) = "ACTIVE" /\ srv.holder \in Attempt
                       /\ OwnerOf[srv.holder] = OwnerOf[a] => srv.holder = a

(* 6. The fenced store never accepted a write from an older grant after    *)
(* one from a newer grant: the last accepted write comes from the newest   *)
(* grant that ever wrote.  (It accepts token >= highest by construction;   *)
(* this breaks exactly when a token was issued twice.)                     *)
FencedEffects == storeLast = storeMax

(* 7. A call that returns Unavailable, Overloaded or a "rejected before    *)
(* any I/O" exception did not change the server: its request never ran.   *)
CertaintyIsHonest ==
    [][\A a \in Attempt : Delivered(a) /\ ResultOf(a) \in {"Unavailable", "Overloaded", "Rejected"}
                          => call[a].phase = "refused"]_vars

THEOREM Spec => /\ [](TypeOK /\ ValidityWithinServerLease /\ MutualExclusion
                      /\ NoInheritance /\ FencedEffects)
                /\ StateOutcomeAgreement /\ ReplayNeverExtends /\ CertaintyIsHonest
    \* For Defects = {} and Faults without Failover/Restart; with them, only FencedEffects
    \* (Durability # "Plain") and the step properties.
=============================================================================
