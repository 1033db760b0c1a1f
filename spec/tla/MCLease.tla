------------------------------ MODULE MCLease ------------------------------
(***************************************************************************)
(* The fixed protocol: 3 attempts of 2 owners, TTL 3 or 4 ticks, drift 1,  *)
(* lost replies, delayed requests, refusals and paused clients.  All seven *)
(* invariants must hold.  Durability is ClockFloor (the adapter default);  *)
(* without failover the counter never goes back anyway.                    *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay", "Refuse"}   \* {"LoseReply", "Delay", "Refuse", "Pause", "Failover", "Restart"}
MCDefects == {}                                          \* the fixed protocol
MCTtl == {3, 4}                                          \* {1, 3, 4}: 1 <= drift is rejected before I/O (a stutter)
=============================================================================
