----------------------------- MODULE MCWaiting ------------------------------
(***************************************************************************)
(* The wait loop (WaitSpec's temporal properties): two attempts of two     *)
(* owners, one thread each, TTL 2, drift 1, no fault, and no bound on the  *)
(* calls, on the relative clock (MCRelative).  TTL 2 is the shortest a     *)
(* caller may ask for: how long the holder holds changes only how long the *)
(* waiter waits, and TTL 3 would double the states for nothing more.       *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCRelative

MCAttempt == {a1, a3}                 \* A waiter and a holder, of two owners.
MCLane == {t1}                        \* One thread per attempt.
MCTtl == {2}                          \* The TTL a caller asks for.
MCFaults == {}                        \* No fault: one could answer every try of a waiter.
MCDurability == "Plain"               \* No clock in the tokens (they are not tracked here anyway).
MCMaxCalls == 0                       \* Unused: the calls are not bounded here.
=============================================================================
