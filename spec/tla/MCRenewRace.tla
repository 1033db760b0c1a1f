----------------------------- MODULE MCRenewRace -----------------------------
(***************************************************************************)
(* The adapter before issue 12 (RenewCapAtReply): the watchdog renews to a *)
(* shorter TTL while the application replays the same attempt. The replay  *)
(* runs first and reports the longer PTTL, the renew then shortens the     *)
(* key, its reply lands first and leaves the ledger, and the replay's      *)
(* reply is absorbed with the longer budget. No fault is needed: two       *)
(* threads are enough.                                                     *)
(* Expected: FAIL:ValidityWithinServerLease                                *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {}   \* the faults that may happen
MCDefects == {"RenewCapAtReply"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
