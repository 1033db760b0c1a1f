----------------------- MODULE MCRefusedReleaseAbsent -----------------------
(***************************************************************************)
(* A release that the server refused before running it (NOPERM, BUSY) is   *)
(* reported as AlreadyAbsent: the handle says RELEASED while the key still *)
(* holds the attempt's value, and nothing tells the caller so.  The        *)
(* protocol's 3 attempts of 2 owners, one thread, with lost replies,       *)
(* delayed requests and refusals.                                          *)
(*                                                                         *)
(* Expected: FAIL:NoLeaseLeftBehind                                        *)
(***************************************************************************)
EXTENDS MCBase, Breakers

MCAttempt == {a1, a2, a3}                      \* 3 attempts of 2 owners.
MCLane == {t1}                                 \* One thread per attempt.
MCTtl == {3, 4}                                \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay", "Refuse"}   \* The faults that may happen.
MCDurability == "ClockFloor"                   \* The adapter's default.
MCMaxCalls == 3                                \* The calls the clients send in all.
=============================================================================
