----------------------------- MODULE MCWatched ------------------------------
(***************************************************************************)
(* The watchdog (WatchSpec's properties): one attempt, one thread, TTL 3,  *)
(* drift 1, no fault, and no bound on the calls, on the relative clock     *)
(* (MCRelative).                                                           *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCRelative

MCAttempt == {a1}                     \* One attempt: the properties speak of one.
MCLane == {t1}                        \* One thread per attempt.
MCTtl == {3}                          \* The TTL a caller asks for.
MCFaults == {}                        \* No fault: a refused or lost renewal is not on time.
MCDurability == "Plain"               \* No clock in the tokens (they are not tracked here anyway).
MCMaxCalls == 0                       \* Unused: the calls are not bounded here.

(* A tick on the relative clock that waits for the watchdog (OnTime).      *)
OnTimeTick(d) == OnTime /\ RelativeTick(d)
=============================================================================
