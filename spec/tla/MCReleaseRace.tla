----------------------------- MODULE MCReleaseRace -----------------------------
(***************************************************************************)
(* The adapter before issue 12 (ReleaseCheckAtReply): a replay runs, then  *)
(* a release of the same attempt deletes the key and returns Released; the *)
(* replay's reply then opens a new handle that is ACTIVE with no key. One  *)
(* TTL, so that no renew shortens the lease (that is MCRenewRace).         *)
(* Expected: FAIL:ActiveHoldsKey                                           *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {}   \* the faults that may happen
MCDefects == {"ReleaseCheckAtReply"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {4}   \* the TTLs a caller may ask for
=============================================================================
