----------------------------- MODULE MCLocalExpiryNotStored -----------------------------
(***************************************************************************)
(* Seed defect 4: state() returns LOST on local expiry without storing it; *)
(* a renew in flight then makes the handle ACTIVE again.                   *)
(* Expected: FAIL:TerminalStays                                            *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"LocalExpiryNotStored"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
