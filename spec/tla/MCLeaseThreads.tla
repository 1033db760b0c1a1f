----------------------------- MODULE MCLeaseThreads -----------------------------
(***************************************************************************)
(* The fixed protocol with two threads on one attempt: the watchdog's      *)
(* renew beside the application's replay or release, two calls in flight   *)
(* in every interleaving, with lost replies, delayed requests and          *)
(* refusals. One attempt: attempts share no client state, and              *)
(* ActiveHoldsKey (checked here) implies MutualExclusion.                  *)
(* Expected: PASS                                                          *)
(***************************************************************************)
EXTENDS MCBase

MCFaults == {"LoseReply", "Delay", "Refuse"}   \* the faults that may happen
MCDefects == {}   \* the defects switched on ({} = the fixed protocol)
MCTtl == {3, 4}   \* the TTLs a caller may ask for
=============================================================================
