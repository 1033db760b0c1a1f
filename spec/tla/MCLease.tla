------------------------------ MODULE MCLease -------------------------------
(***************************************************************************)
(* The protocol at full size: 3 attempts of 2 owners, two threads per      *)
(* attempt (the watchdog's renew beside a replay or a release), TTL 3 or 4 *)
(* ticks, drift 1, with lost replies, delayed requests and refusals.       *)
(* Durability is ClockFloor (the adapter's default); without failover the  *)
(* counter never goes back anyway.                                         *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2, a3}                      \* 3 attempts of 2 owners.
MCLane == {t1, t2}                             \* Two threads per attempt: the application and the watchdog.
MCTtl == {3, 4}                                \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay", "Refuse"}   \* The faults that may happen.
MCDurability == "ClockFloor"                   \* The adapter's default.
MCMaxCalls == 3                                \* The calls the clients send in all.
=============================================================================
