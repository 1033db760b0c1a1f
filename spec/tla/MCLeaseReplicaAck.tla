----------------------------- MODULE MCLeaseReplicaAck -----------------------------
(***************************************************************************)
(* ReplicaAck (WAIT): a grant's reply is delivered only after the replica  *)
(* took it, so a failover never loses a returned token. No restart here    *)
(* (see MCRestartReplicaAck).                                              *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"Pause", "Failover"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
