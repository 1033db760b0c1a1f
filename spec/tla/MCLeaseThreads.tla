--------------------------- MODULE MCLeaseThreads ---------------------------
(***************************************************************************)
(* The protocol with two threads on one attempt: the watchdog's            *)
(* renew beside the application's replay or release, two calls in flight   *)
(* in every interleaving, with lost replies, delayed requests and          *)
(* refusals. One attempt: attempts share no client state, and              *)
(* ActiveHoldsKey (checked here) implies MutualExclusion.                  *)
(*                                                                         *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1}                              \* One attempt: attempts share no client state.
MCLane == {t1, t2}                             \* Two threads on the attempt: the application and the watchdog.
MCTtl == {3, 4}                                \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay", "Refuse"}   \* The faults that may happen.
MCDurability == "ClockFloor"                   \* The adapter's default.
MCMaxCalls == 3                                \* The calls the clients send in all.
=============================================================================
