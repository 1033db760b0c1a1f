------------------------------ MODULE MCNoPendingBookkeeping ------------------------------
(***************************************************************************)
(* Without the per-attempt minPendingTtl/releasePending, a delayed shorter RENEW applied after a *)
(* later longer one shortens the lease below the local deadline.           *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"NoPendingBookkeeping"}   \* the seed defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
