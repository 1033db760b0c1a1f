----------------------------- MODULE MCReplayFullTtl -----------------------------
(***************************************************************************)
(* Seed defect 3: a replay's budget is the full request TTL - drift        *)
(* instead of replyPTTL - drift.                                           *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"ReplayFullTtl"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
