----------------------------- MODULE MCWaiting ------------------------------
(***************************************************************************)
(* The wait loop (WaitSpec's temporal properties): two attempts of two     *)
(* owners, one thread each, TTL 3, drift 1, no fault, and no bound on the  *)
(* calls, on the relative clock (MCRelative).                              *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCRelative

MCAttempt == {a1, a3}                 \* A waiter and a holder, of two owners.
MCLane == {t1}                        \* One thread per attempt.
MCTtl == {3}                          \* The TTL a caller asks for.
MCFaults == {}                        \* No fault: one could answer every try of a waiter.
MCDurability == "Plain"               \* No clock in the tokens (they are not tracked here anyway).
MCMaxCalls == 0                       \* Unused: the calls are not bounded here.
=============================================================================
