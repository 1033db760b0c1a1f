----------------------- MODULE MCSilentAmbiguousRenew -----------------------
(***************************************************************************)
(* A renew left unanswered is reported to its caller as Indeterminate, but *)
(* the handle keeps saying ACTIVE: it takes the deadline its renew in      *)
(* flight capped and the ledger records the renew, so the budget is safe,  *)
(* but state() hides that the lease may be lost, and a watchdog reading it *)
(* renews on.  The protocol's 3 attempts of 2 owners, one thread, with     *)
(* lost replies and delayed requests.                                      *)
(*                                                                         *)
(* Expected: FAIL:LossIsReported                                           *)
(***************************************************************************)
EXTENDS MCBase, Breakers

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.
=============================================================================
