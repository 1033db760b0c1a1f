------------------------------- MODULE MCBase -------------------------------
(***************************************************************************)
(* The model values and the symmetry shared by every MC*.tla configuration.*)
(* Each MC module EXTENDS this one and binds Faults, Durability and        *)
(* Defects (and the sizes) in its .cfg.                                    *)
(***************************************************************************)
EXTENDS Lease, TLC

CONSTANTS
    a1, a2,   \* Two operations of owner o1 (same owner token, different operation ids).
    a3,       \* An operation of owner o2.
    o1, o2,   \* The owner tokens.
    t1, t2    \* Two client threads: the application and the watchdog.

MCOwnerOf == (a1 :> o1 @@ a2 :> o1 @@ a3 :> o2)   \* a1, a2 share o1; a3 is o2's.

MCAttempt3 == {a1, a2, a3}   \* 3 attempts of 2 owners.
MCAttempt2 == {a1, a3}       \* 2 attempts of 2 owners (for the larger fault sets).
MCAttempt1 == {a1}           \* 1 attempt (for the races of two threads on one attempt).
MCAttemptSameOwner == {a1, a2}   \* 2 operations of one owner (NoInheritance), interchangeable.

MCLanes == {t1, t2}          \* Two threads may call on one attempt at once.
MCLane1 == {t1}              \* One thread (where one call in flight is the bound anyway).

(* The threads are interchangeable (any may renew, replay or release), and *)
(* so are a1 and a2 (same owner, and the spec never names an attempt); a3  *)
(* is not (another owner).                                                 *)
MCLaneSymmetry == Permutations(MCLanes)
MCSymmetry == {p @@ q : p \in Permutations({a1, a2}), q \in Permutations(MCLanes)}
    \* The product group: swapping both at once is a symmetry too.
MCAttemptSymmetry == Permutations({a1, a2})   \* With one thread.
=============================================================================
