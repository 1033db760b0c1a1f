---------------------------- MODULE MCRenewRace -----------------------------
(***************************************************************************)
(* A defective adapter that caps a budget only by the ledger               *)
(* at the reply: the watchdog renews to a shorter TTL while the            *)
(* application replays the same attempt. The replay runs first and reports *)
(* the longer PTTL, the renew then shortens the key, its reply lands first *)
(* and leaves the ledger, and the replay's reply is absorbed with the      *)
(* longer budget. One attempt, two threads, no fault.                      *)
(*                                                                         *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1}              \* One attempt: attempts share no client state.
MCLane == {t1, t2}             \* Two threads on the attempt: the application and the watchdog.
MCTtl == {3, 4}                \* The TTLs a caller may ask for.
MCFaults == {}                 \* The faults that may happen.
MCDurability == "ClockFloor"   \* The adapter's default.
MCMaxCalls == 3                \* The calls the clients send in all.

(* A success's budget is capped only by the renews ambiguous or still in   *)
(* flight when its reply arrives (AttemptLedger.renewCapMs), not by those  *)
(* in flight at any time during its flight (the window).                   *)
MCBudgetCap(a, l) == RenewCap(a)
=============================================================================
