------------------------------- MODULE MCBase -------------------------------
(***************************************************************************)
(* What every MC*.tla configuration of Lease.tla shares: the model values, *)
(* the owners, the drift, the counter's retention, the checking bounds     *)
(* with the state constraint, and the symmetry.  Each MC module EXTENDS    *)
(* this one and defines what it varies: MCAttempt, MCLane, MCTtl,          *)
(* MCFaults, MCDurability and MCMaxCalls (and, to show a defect, the       *)
(* operators its .cfg overrides).  Every .cfg binds the same names the     *)
(* same way; it differs only in its two comment lines, the overrides, and  *)
(* the invariants it checks.                                               *)
(***************************************************************************)
EXTENDS Lease, TLC

CONSTANTS
    a1, a2,   \* Two operations of owner o1 (same owner token, different operation ids).
    a3,       \* An operation of owner o2.
    o1, o2,   \* The owner tokens.
    t1, t2,   \* Two client threads: the application and the watchdog.
    MaxCalls  \* Bound of the calls the clients send in all (MCMaxCalls of the MC module).

MCOwner == {o1, o2}                                \* The owner tokens.
MCOwnerOf == (a1 :> o1 @@ a2 :> o1 @@ a3 :> o2)   \* a1, a2 share o1; a3 is o2's.
MCDrift == 1                                       \* The drift budget: one tick.
MCRetention == 1                                   \* The counter outlives the key by one tick.

(***************************************************************************)
(* The checking bounds.  Grants are bounded, and so are the delayed        *)
(* requests and the calls sent in all (time is not: see MCView).  The      *)
(* calls in flight at once belong to one attempt: attempts share no client *)
(* state and a script runs atomically, so calls of two attempts in flight  *)
(* at once add only interleavings of their sends and replies, and the      *)
(* races between attempts (a delayed request against a later call, expiry  *)
(* during a call) remain.  What this hides: two attempts' calls in flight  *)
(* across one tick, one failover dropping the replies of two attempts, and *)
(* (ReplicaAck) a WAIT answered by another attempt's replicated counter.   *)
(* So at most one call per thread is in flight.  Two calls of one attempt  *)
(* in flight reach a renew or release against a replay with 3 calls, and a *)
(* stale request against the new handle's own with 4 (DeepLeaseThreads); a *)
(* delayed request adds one more request that may still run.               *)
(***************************************************************************)
MaxGrants == 2    \* Bound of the grants made in all.
MaxDelayed == 1   \* Bound of the delayed requests at once.

(* The attempts with a call awaiting its reply.                            *)
Busy == {a \in Attempt : \E l \in Lane : call[a][l] # NoCall}

(* Keeps the state space finite and small (TLC's CONSTRAINT).  Grants are  *)
(* bounded only where tokens are tracked (elsewhere they are bounded by    *)
(* the calls, and the view leaves them out: nothing reads them).  Time is  *)
(* not bounded: the view below keeps it relative, which leaves finitely    *)
(* many views however long a behaviour runs.                               *)
StateConstraint ==
    /\ calls <= MaxCalls
    /\ ~TrackTokens \/ grants <= MaxGrants
    /\ Cardinality(Busy) <= 1
    /\ Cardinality(delayed) <= MaxDelayed

(***************************************************************************)
(* The view (TLC's VIEW): what TLC compares to tell two states apart.      *)
(* Lease.tla reads the clocks only as differences (an expiry less now, a   *)
(* deadline or a start less the client's clock cnow), except ClockFloor's  *)
(* floor now * TokensPerTick, so a state and the same state with every     *)
(* clock shifted have the same futures, shifted; the view keeps one.  It   *)
(*  - shifts server times by now and client times by cnow;                 *)
(*  - cuts a live handle's deadline at cnow, and a call's start s (TTL t)  *)
(*    at cnow - t + Drift: before that, every deadline they give is spent; *)
(*  - with ClockFloor tokens, keeps a token of the current tick relative   *)
(*    to the floor, and ranks the tokens of earlier ticks (-1 for the      *)
(*    highest), which are only compared with each other from then on;      *)
(*  - shows a live handle whose own deadline dl has passed as StoredState  *)
(*    leaves it (LOST, its caller told so), as State(a) would store it.    *)
(*    Only dl: a deadline that has passed only because a renew in flight   *)
(*    caps it comes back when the renew is refused.                        *)
(* So time needs no bound.  It leaves out sent, which only names the step  *)
(* that sends an acquire (TryAcquire or Replay send the same call).  Why   *)
(* no property sees a difference between two states with one view:         *)
(* spec/README.md.                                                         *)
(***************************************************************************)
Floor == now * TokensPerTick                               \* ClockFloor's floor now.
RankedTokens == TrackTokens /\ Durability = "ClockFloor"   \* Whether tokens are read against the floor.
TokensHeld == {srv.fence, replica.fence, storeHigh} \cup {tok[a] : a \in Attempt}
              \cup {call[a][l].reply.token : a \in Attempt, l \in Lane}
                                                         \* Every token value the state holds.

(* TLC evaluates the view once for every state it generates, so each part  *)
(* that several others read is named once in a LET, and evaluated once     *)
(* rather than at each use: the tokens of earlier ticks, and each handle's *)
(* stored state.                                                           *)
MCView ==
    LET old == IF RankedTokens THEN {y \in TokensHeld : y < Floor} ELSE {}
                                                         \* The tokens ranked.
        TokenView(x) == IF ~RankedTokens THEN x
                        ELSE IF x >= Floor THEN x - Floor
                        ELSE -Cardinality({y \in old : y >= x})
                                                         \* Token x, relative to the floor or ranked.
        ServerView(s) == [s EXCEPT !.expiry = IF s.holder = None THEN 0 ELSE s.expiry - now,
                                   !.fenceExpiry = Max(s.fenceExpiry - now, 0),
                                   !.fence = TokenView(s.fence)]   \* Server s, relative to now.
        CallView(c) == [c EXCEPT !.start = IF c.kind \in {"acquire", "renew"}
                                           THEN Max(c.start - cnow, Drift - c.ttl) ELSE c.start,
                                 !.reply.token = TokenView(c.reply.token),
                                 !.reply.same = FALSE]   \* Call c, relative to cnow, its reply's owner bit dropped.
        HandleView(a) ==
            LET st == IF cnow >= dl[a] THEN StoredState(a) ELSE hs[a] IN
            <<st,
              IF st \in Live THEN Max(dl[a] - cnow, 0) ELSE 0,   \* its deadline, relative to cnow
              IF st # hs[a] THEN st ELSE seen[a],               \* what its caller was told, as State(a) leaves it
              TokenView(tok[a]), hgrant[a], hfrom[a], ambiguousRenewCap[a], ambiguousRelease[a],
              acquireUnsure[a]>>                             \* a's handle, as State(a) would store it
    IN  <<lag, ServerView(srv), ServerView(replica),   \* Every variable but sent, times and tokens relative.
          [a \in Attempt |-> [l \in Lane |-> CallView(call[a][l])]],
          [a \in Attempt |-> HandleView(a)], delayed,
          TokenView(storeHigh), storeLast, storeMax, IF TrackTokens THEN grants ELSE 0, calls>>

(* ClockFloor's scale: more tokens per tick than grants in all, hence more *)
(* than grants in any one tick, which is what Lease.tla needs.             *)
MCTokensPerTick == MaxGrants + 1
ASSUME TokensPerTick > MaxGrants /\ MaxCalls \in Nat

(* The symmetry (TLC's SYMMETRY).  The threads are interchangeable (any    *)
(* may renew, replay or release), and so are the attempts: the spec never  *)
(* names one, and reads OwnerOf only for a contended acquire's `same` bit, *)
(* which picks between two outcome names (OwnerOperationConflict,          *)
(* Contended) that no action and no property tells apart; the view drops   *)
(* the bit.  A defect that reads OwnerOf elsewhere (OwnerOnlySameValue)    *)
(* makes the attempt symmetry unsound there, where it can only hide a      *)
(* violation: its configuration and its breaker check must still fail,     *)
(* and do.  Swapping both at once is a symmetry too, so the group is the   *)
(* product.                                                                *)
MCSymmetry == {p @@ q : p \in Permutations(Attempt), q \in Permutations(Lane)}
=============================================================================
