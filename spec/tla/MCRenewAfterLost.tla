-------------------------- MODULE MCRenewAfterLost --------------------------
(***************************************************************************)
(* Defect: renew has no state precondition, so a LOST handle sends         *)
(* a renew; and a success replaces the budget without restoring ACTIVE.    *)
(* The protocol's 3 attempts of 2 owners, one thread, with lost            *)
(* replies and delayed requests.                                           *)
(*                                                                         *)
(* Expected: FAIL:NoSendAfterEnd                                           *)
(***************************************************************************)
EXTENDS MCBase, Breakers

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.

(* Any handle may send a renew (Breakers.tla's RenewAnyHandle), and a     *)
(* reply 1 keeps the stored state, takes the new deadline and returns     *)
(* Renewed.                                                               *)
MCRenewReply(a, l) == [state |-> hs[a], deadline |-> NewDeadline(a, l), outcome |-> "Renewed"]
=============================================================================
