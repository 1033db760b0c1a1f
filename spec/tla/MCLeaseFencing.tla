------------------------------ MODULE MCLeaseFencing ------------------------------
(***************************************************************************)
(* The fixed protocol with lost replies, paused clients writing to the     *)
(* fenced store, failover and restart, and the ClockFloor counter (the     *)
(* adapter default).  A failover or restart that loses writes breaks       *)
(* invariants 1 and 2 by nature (the key is gone), so they are not checked *)
(* here: fencing must hold anyway.  Delay and Refuse: see MCLease.         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Pause", "Failover", "Restart"}   \* the faults that may happen (Delay and Refuse: see MCLease)
MCDefects == {}   \* the seed defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
