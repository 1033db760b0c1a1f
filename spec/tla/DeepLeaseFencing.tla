----------------------------- MODULE DeepLeaseFencing -----------------------------
(***************************************************************************)
(* Opt-in, MCLeaseFencing with two threads per attempt and two calls in    *)
(* flight.                                                                 *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"Pause", "Failover", "Restart"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
