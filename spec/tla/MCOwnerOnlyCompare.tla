------------------------------ MODULE MCOwnerOnlyCompare ------------------------------
(***************************************************************************)
(* acquire.lua compares only the owner token: another operation of the same owner gets status 2. *)
(* (ValidityWithinServerLease breaks in the same state; it is left out so that TLC names this one.) *)
(* Expected: FAIL:NoInheritance                                            *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"OwnerOnlyCompare"}   \* the seed defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
