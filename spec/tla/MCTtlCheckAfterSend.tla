------------------------ MODULE MCTtlCheckAfterSend -------------------------
(***************************************************************************)
(* Defect: TTL <= drift is rejected only after the script ran; the exception *)
(* promises "nothing sent". TTL 1 (<= drift) is allowed here. The          *)
(* protocol's 3 attempts of 2 owners, one thread, with lost replies and    *)
(* delayed requests.                                                       *)
(*                                                                         *)
(* Expected: FAIL:CertaintyIsHonest                                        *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {1, 3, 4}                   \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.

(* Every TTL is sent.                                                      *)
MCTtlOk(t) == TRUE
=============================================================================
