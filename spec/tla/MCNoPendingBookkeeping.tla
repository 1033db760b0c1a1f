----------------------------- MODULE MCNoPendingBookkeeping -----------------------------
(***************************************************************************)
(* Without the per-attempt ledger (ambiguous renews and releases), a       *)
(* delayed shorter RENEW applied after a later longer one shortens the     *)
(* lease below the local deadline.                                         *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"NoPendingBookkeeping"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
