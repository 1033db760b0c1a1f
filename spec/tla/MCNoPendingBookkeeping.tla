----------------------- MODULE MCNoPendingBookkeeping -----------------------
(***************************************************************************)
(* Without the per-attempt ledger (renews and releases in flight or        *)
(* ambiguous), a delayed shorter RENEW applied after a later longer one    *)
(* shortens the lease below the local deadline. The protocol's 3           *)
(* attempts of 2 owners, one thread, with lost replies and delayed         *)
(* requests.                                                               *)
(*                                                                         *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.

(* No ledger: a success's budget has no cap,                               *)
MCBudgetCap(a, l) == NoPending

(* and no release ever keeps a handle from ACTIVE or from renewing.        *)
MCReleaseMayDelete(a, l) == FALSE
=============================================================================
