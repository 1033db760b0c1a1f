-------------------------- MODULE DeepLeaseFencing --------------------------
(***************************************************************************)
(* Opt-in, deeper MCLeaseFencing: lost replies too, and 4 calls, so that a *)
(* stale request of a replaced handle runs beside the new handle's own,    *)
(* across a failover or a restart.  Too large to finish on one machine in  *)
(* minutes: the build samples it in TLC's simulation mode, and TLC's       *)
(* distributed mode checks it exhaustively on more machines                *)
(* (spec/README.md).                                                       *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2}                                       \* 2 operations of one owner, interchangeable.
MCLane == {t1, t2}                                          \* Two threads per attempt: the application and the watchdog.
MCTtl == {3, 4}                                             \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Pause", "Failover", "Restart"}   \* The faults that may happen.
MCDurability == "ClockFloor"                                \* Tokens floored by the server clock.
MCMaxCalls == 4                                             \* One call more than MCLeaseFencing.
=============================================================================
