-------------------------- MODULE DeepLeaseFencing --------------------------
(***************************************************************************)
(* Opt-in, deeper MCLeaseFencing: two threads on each of two operations of *)
(* one owner, with paused clients, lost replies, failover and restart,     *)
(* 4 calls and 6 ticks: a renew beside a replay across a failover or a     *)
(* restart.  Too large to finish on one machine in minutes: the build      *)
(* samples it in TLC's simulation mode, and TLC's distributed mode checks  *)
(* it exhaustively on more machines (spec/README.md).                      *)
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
DeepMaxTime == 6                                            \* Two ticks more than MaxTime.
=============================================================================
