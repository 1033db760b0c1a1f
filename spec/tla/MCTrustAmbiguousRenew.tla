----------------------- MODULE MCTrustAmbiguousRenew ------------------------
(***************************************************************************)
(* An ambiguous (maybe shorter) renew is trusted: while it is in flight    *)
(* and after its client gave up, the handle stays ACTIVE with its old      *)
(* deadline, and the ledger does not record it. The protocol's 3           *)
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

(* The handle relies on its stored deadline, even while a renew is in      *)
(* flight,                                                                 *)
MCDeadline(a) == dl[a]

(* and an ambiguous renew changes nothing.                                 *)
MCRenewUnanswered(a, l) == UNCHANGED handleVars
=============================================================================
