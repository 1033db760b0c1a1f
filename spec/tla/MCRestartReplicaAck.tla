----------------------------- MODULE MCRestartReplicaAck -----------------------------
(***************************************************************************)
(* ReplicaAck survives failover but not a restart that empties the server: *)
(* the counter starts again.                                               *)
(* Expected: FAIL:FencedEffects                                            *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"Pause", "Failover", "Restart"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
