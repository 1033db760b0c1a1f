----------------------------- MODULE MCFailoverPlain -----------------------------
(***************************************************************************)
(* A plain counter and a failover that loses the last grant: the token is  *)
(* issued twice, and the fenced store accepts the stale holder's write.    *)
(* Expected: FAIL:FencedEffects                                            *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"Pause", "Failover"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
