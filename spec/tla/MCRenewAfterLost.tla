----------------------------- MODULE MCRenewAfterLost -----------------------------
(***************************************************************************)
(* Seed defect 4: renew has no state precondition (and a success does not  *)
(* restore ACTIVE), so a LOST handle sends a renew.                        *)
(* Expected: FAIL:NoSendAfterEnd                                           *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"RenewAfterLost"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
