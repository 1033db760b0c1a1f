------------------------------- MODULE MCBase -------------------------------
(***************************************************************************)
(* What every MC*.tla configuration of Lease.tla shares: the model values, *)
(* the owners, the drift, the checking bounds with the state constraint,   *)
(* and the symmetry.  Each MC module EXTENDS this one and defines what it  *)
(* varies: MCAttempt, MCLane, MCTtl, MCFaults, MCDurability and MCMaxCalls *)
(* (and, to show a defect, the operators its .cfg overrides).  Every .cfg  *)
(* binds the same names the same way; it differs only in its two comment  *)
(* lines, the overrides, and the invariants it checks.                     *)
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

(***************************************************************************)
(* The checking bounds.  Time and grants are bounded, and so are the       *)
(* delayed requests and the calls sent in all.  The calls in flight at     *)
(* once belong to one attempt: attempts share no client state and a script *)
(* runs atomically, so calls of two attempts in flight at once add only    *)
(* interleavings of their sends and replies, and the races between         *)
(* attempts (a delayed request against a later call, expiry during a call) *)
(* remain.  What this hides: two attempts' calls in flight across one      *)
(* tick, one failover dropping the replies of two attempts, and            *)
(* (ReplicaAck) a WAIT answered by another attempt's replicated counter.   *)
(* So at most one call per thread is in flight.  Two calls of one attempt  *)
(* in flight reach a renew or release against a replay with 3 calls, and a *)
(* stale request against the new handle's own with 4 (DeepLeaseThreads);  *)
(* a delayed request adds one more request that may still run.             *)
(***************************************************************************)
MaxTime == 4      \* Bound of the server clock.
MaxGrants == 2    \* Bound of the grants made in all.
MaxDelayed == 1   \* Bound of the delayed requests at once.

(* The calls awaiting their reply, as <<attempt, lane>> pairs.             *)
InFlight == {p \in Attempt \X Lane : call[p[1]][p[2]] # NoCall}

(* Keeps the state space finite and small (TLC's CONSTRAINT).              *)
StateConstraint ==
    /\ now <= MaxTime /\ grants <= MaxGrants
    /\ \A p, q \in InFlight : p[1] = q[1]
    /\ Cardinality(delayed) <= MaxDelayed
    /\ calls <= MaxCalls

(* ClockFloor's scale: more tokens per tick than grants in all, hence more *)
(* than grants in any one tick, which is what Lease.tla needs.             *)
MCTokensPerTick == MaxGrants + 1
ASSUME TokensPerTick > MaxGrants /\ MaxCalls \in Nat

(* The symmetry (TLC's SYMMETRY).  The threads are interchangeable (any    *)
(* may renew, replay or release), and so are a1 and a2 when both are       *)
(* attempts (same owner, and the spec never names an attempt); a3 is not   *)
(* (another owner).  Swapping both at once is a symmetry too, so the group *)
(* is the product.  With one thread and at most one of a1, a2 it holds     *)
(* only the identity.                                                      *)
MCSymmetry == {p @@ q : p \in Permutations(Attempt \cap {a1, a2}), q \in Permutations(Lane)}
=============================================================================
