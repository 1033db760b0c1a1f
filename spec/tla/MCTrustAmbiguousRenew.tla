----------------------------- MODULE MCTrustAmbiguousRenew -----------------------------
(***************************************************************************)
(* An ambiguous (maybe shorter) renew is trusted: the handle keeps its old *)
(* deadline.                                                               *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"TrustAmbiguousRenew"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
