------------------------------ MODULE MCRenewAfterLost ------------------------------
(***************************************************************************)
(* Seed defect 4: renew has no state precondition and a success does not restore ACTIVE, *)
(* so Renewed comes back while state() says LOST.                          *)
(* Expected: FAIL:StateOutcomeAgreement                                    *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"RenewAfterLost"}   \* the seed defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
