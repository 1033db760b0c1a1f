----------------------------- MODULE MCOwnerOnlyCompare -----------------------------
(***************************************************************************)
(* acquire.lua compares only the owner token: another operation of the     *)
(* same owner gets status 2 and a handle on the other's lease              *)
(* (ActiveHoldsKey breaks in the same state; NoInheritance is listed       *)
(* first, so TLC names it).                                                *)
(* Expected: FAIL:NoInheritance                                            *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"OwnerOnlyCompare"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
