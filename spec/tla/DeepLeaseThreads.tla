-------------------------- MODULE DeepLeaseThreads --------------------------
(***************************************************************************)
(* Opt-in, deeper MCLeaseThreads: 4 calls, so that a stale renew of a      *)
(* replaced handle runs beside the new handle's own renew or release, with *)
(* lost replies and delayed requests (no refusals).                        *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1}                    \* One attempt: attempts share no client state.
MCLane == {t1, t2}                   \* Two threads on the attempt: the application and the watchdog.
MCTtl == {3, 4}                      \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay"}   \* The faults that may happen.
MCDurability == "ClockFloor"         \* The adapter's default.
MCMaxCalls == 4                      \* One call more than MCLeaseThreads.
=============================================================================
