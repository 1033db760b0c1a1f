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
    o1, o2    \* The owner tokens.

MCOwnerOf == (a1 :> o1 @@ a2 :> o1 @@ a3 :> o2)   \* a1, a2 share o1; a3 is o2's.

MCAttempt3 == {a1, a2, a3}   \* 3 attempts of 2 owners.
MCAttempt2 == {a1, a3}       \* 2 attempts of 2 owners (for the larger fault sets).

(* a1 and a2 are interchangeable: same owner, and the spec never names an  *)
(* attempt.  a3 is not (another owner).                                    *)
MCSymmetry == Permutations({a1, a2})
=============================================================================
