------------------------- MODULE MCOwnerOnlyCompare -------------------------
(***************************************************************************)
(* The scripts compare only the owner token, not the whole                 *)
(* ownerToken:operationId: another operation of the same owner gets status *)
(* 2 and a handle on the other's lease (ActiveHoldsKey breaks in the same  *)
(* state; NoInheritance is listed first, so TLC names it). The fixed       *)
(* protocol's 3 attempts of 2 owners, one thread, with lost replies and    *)
(* delayed requests.                                                       *)
(*                                                                         *)
(* Expected: FAIL:NoInheritance                                            *)
(***************************************************************************)
EXTENDS MCBase, Breakers

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.
=============================================================================
