----------------------- MODULE MCLocalExpiryNotStored -----------------------
(***************************************************************************)
(* Defect: state() returns LOST on local expiry without storing it;        *)
(* a renew in flight then makes the handle ACTIVE again. The               *)
(* protocol's 3 attempts of 2 owners, one thread, with lost replies and    *)
(* delayed requests.                                                       *)
(*                                                                         *)
(* Expected: FAIL:TerminalStays                                            *)
(***************************************************************************)
EXTENDS MCBase, Breakers

MCAttempt == {a1, a2, a3}            \* 3 attempts of 2 owners.
MCLane == {t1}                       \* One thread per attempt.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 3                      \* The calls the clients send in all.
=============================================================================
