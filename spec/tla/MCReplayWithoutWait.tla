------------------------- MODULE MCReplayWithoutWait -------------------------
(***************************************************************************)
(* Defect: with ReplicaAck, only a fresh grant waits for the replica; a    *)
(* replay reports the token of a grant whose reply was lost without WAIT.  *)
(* A failover then loses that token, another operation is granted it      *)
(* again, and the paused first holder's write is accepted after the new    *)
(* holder's.  Two operations of one owner, one thread, lost replies,       *)
(* paused clients and failover.                                            *)
(*                                                                         *)
(* Expected: FAIL:FencedEffects                                            *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2}                            \* 2 operations of one owner, interchangeable.
MCLane == {t1}                                   \* One thread per attempt.
MCTtl == {3, 4}                                  \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Pause", "Failover"}   \* The faults that may happen.
MCDurability == "ReplicaAck"                     \* WAIT for the replica.
MCMaxCalls == 3                                  \* The calls the clients send in all.

(* Only a grant's reply (status 1) waits for the replica.                  *)
MCAcked(a, l) == \/ call[a][l].kind # "acquire" \/ call[a][l].reply.status # 1
                 \/ replica.fence >= call[a][l].reply.token
=============================================================================
