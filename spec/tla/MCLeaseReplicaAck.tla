------------------------- MODULE MCLeaseReplicaAck --------------------------
(***************************************************************************)
(* ReplicaAck (WAIT): a grant's or a replay's reply is delivered only      *)
(* after the replica took its token, so a failover never loses a returned  *)
(* token. Paused clients and failover, two threads per attempt (a renew    *)
(* beside a replay or a release); no restart here (see                     *)
(* MCRestartReplicaAck). As in MCLeaseFencing, its .cfg does not check     *)
(* ActiveHoldsKey, ValidityWithinServerLease and MutualExclusion.          *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2}               \* 2 operations of one owner, interchangeable.
MCLane == {t1, t2}                  \* Two threads per attempt: the application and the watchdog.
MCTtl == {3, 4}                     \* The TTLs a caller may ask for.
MCFaults == {"Pause", "Failover"}   \* The faults that may happen.
MCDurability == "ReplicaAck"        \* WAIT for the replica.
MCMaxCalls == 3                     \* The calls the clients send in all.
=============================================================================
