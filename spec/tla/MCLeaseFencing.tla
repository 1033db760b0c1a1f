----------------------------- MODULE MCLeaseFencing -----------------------------
(***************************************************************************)
(* The fixed protocol with paused clients writing to the fenced store,     *)
(* failover and restart (which also lose the replies in flight),           *)
(* ClockFloor counter. A failover or restart that loses writes breaks      *)
(* ActiveHoldsKey and ValidityWithinServerLease by nature (the key is      *)
(* gone), so they are not checked here: fencing must hold anyway. Two      *)
(* operations of one owner (tokens do not depend on owners).               *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"Pause", "Failover", "Restart"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
