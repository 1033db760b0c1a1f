----------------------------- MODULE MCTtlCheckAfterSend -----------------------------
(***************************************************************************)
(* Seed: TTL <= drift is rejected only after the script ran; the exception *)
(* promises "nothing sent".                                                *)
(* Expected: FAIL:CertaintyIsHonest                                        *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {"TtlCheckAfterSend"}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {1, 3, 4}   \* the TTLs a caller may ask for
=============================================================================
