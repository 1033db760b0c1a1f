----------------------------- MODULE DeepLeaseThreads -----------------------------
(***************************************************************************)
(* Opt-in, deeper MCLeaseThreads: 4 calls, so that a stale renew of a      *)
(* replaced handle runs beside the new handle's own renew or release, with *)
(* lost replies and delayed requests.                                      *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
