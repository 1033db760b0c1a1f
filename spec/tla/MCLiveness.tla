----------------------------- MODULE MCLiveness -----------------------------
(***************************************************************************)
(* What will happen (LiveSpec's temporal properties): one attempt, one     *)
(* thread, TTL 3, drift 1, with lost replies and refusals, and no bound    *)
(* on the calls, on the relative clock (MCRelative).                       *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCRelative

MCAttempt == {a1}                     \* One attempt: the properties speak of one.
MCLane == {t1}                        \* One thread per attempt.
MCTtl == {3}                          \* The TTL a caller asks for.
MCFaults == {"LoseReply", "Refuse"}   \* The faults that may happen.
MCDurability == "Plain"               \* No clock in the tokens (they are not tracked here anyway).
MCMaxCalls == 0                       \* Unused: the calls are not bounded here.
=============================================================================
