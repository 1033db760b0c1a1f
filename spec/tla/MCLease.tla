----------------------------- MODULE MCLease -----------------------------
(***************************************************************************)
(* The fixed protocol at full size: 3 attempts of 2 owners, TTL 3 or 4     *)
(* ticks, drift 1, lost replies, delayed requests and refusals, one thread *)
(* per attempt (two threads: MCLeaseThreads). Durability is ClockFloor     *)
(* (the adapter default); without failover the counter never goes back     *)
(* anyway.                                                                 *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay", "Refuse"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
