----------------------------- MODULE MCReplayExtends -----------------------------
(***************************************************************************)
(* acquire.lua extends the TTL on a replay (status 2).                     *)
(* Expected: FAIL:ReplayNeverExtends                                       *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"ReplayExtends"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
