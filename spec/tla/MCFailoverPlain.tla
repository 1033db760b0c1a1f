-------------------------- MODULE MCFailoverPlain ---------------------------
(***************************************************************************)
(* A plain counter and a failover that loses the last grant: the token is  *)
(* issued twice, and the fenced store accepts the stale holder's write.    *)
(* One attempt of each owner, one thread, paused clients.                  *)
(*                                                                         *)
(* Expected: FAIL:FencedEffects                                            *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a3}               \* One attempt of each owner.
MCLane == {t1}                      \* One thread per attempt.
MCTtl == {3, 4}                     \* The TTLs a caller may ask for.
MCFaults == {"Pause", "Failover"}   \* The faults that may happen.
MCDurability == "Plain"             \* counter + 1.
MCMaxCalls == 3                     \* The calls the clients send in all.
=============================================================================
