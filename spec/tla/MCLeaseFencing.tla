--------------------------- MODULE MCLeaseFencing ---------------------------
(***************************************************************************)
(* The protocol with paused clients writing to the fenced store, failover  *)
(* and restart (which also lose the replies in flight), ClockFloor         *)
(* counter, two threads per attempt: the watchdog's renew beside a replay  *)
(* or a release, across a failover or a restart.  A failover or restart    *)
(* that loses writes breaks ActiveHoldsKey, ValidityWithinServerLease and  *)
(* MutualExclusion by nature (the key is gone), so its .cfg does not check *)
(* them: fencing must hold anyway. Two operations of one owner (tokens do  *)
(* not depend on owners).                                                  *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2}                          \* 2 operations of one owner, interchangeable.
MCLane == {t1, t2}                             \* Two threads per attempt: the application and the watchdog.
MCTtl == {3, 4}                                \* The TTLs a caller may ask for.
MCFaults == {"Pause", "Failover", "Restart"}   \* The faults that may happen.
MCDurability == "ClockFloor"                   \* Tokens floored by the server clock.
MCMaxCalls == 3                                \* The calls the clients send in all.
=============================================================================
