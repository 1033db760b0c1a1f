------------------------ MODULE MCCounterExpiryPlain ------------------------
(***************************************************************************)
(* Defect: the fencing counter expires under a plain counter (counter + 1, *)
(* no clock floor).  Once a released resource's counter is gone, the next  *)
(* grant issues token 1 again, and the fenced store takes a paused old     *)
(* holder's write after the new holder's.  One attempt of each owner, one  *)
(* thread, paused clients, no failover or restart: the expiry alone loses  *)
(* the counter.                                                            *)
(*                                                                         *)
(* Expected: FAIL:FencedEffects                                            *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a3}       \* One attempt of each owner.
MCLane == {t1}              \* One thread per attempt.
MCTtl == {3, 4}             \* The TTLs a caller may ask for.
MCFaults == {"Pause"}       \* Paused clients only.
MCDurability == "Plain"     \* counter + 1.
MCMaxCalls == 3             \* The calls the clients send in all.

(* The defect: the counter expires although tokens have no clock floor.    *)
MCCounterExpires == TRUE
=============================================================================
