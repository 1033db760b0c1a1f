--------------------------- MODULE MCReleaseRace ----------------------------
(***************************************************************************)
(* A defective adapter that checks for a release only at the              *)
(* reply: a replay runs, then a release of the same attempt deletes the    *)
(* key and returns Released; the replay's reply then opens a new handle    *)
(* that is ACTIVE with no key. One attempt, two threads, no fault. One     *)
(* TTL, so that no renew shortens the lease (that is MCRenewRace).         *)
(*                                                                         *)
(* Expected: FAIL:ActiveHoldsKey                                           *)
(***************************************************************************)
EXTENDS MCBase

MCAttempt == {a1}              \* One attempt: attempts share no client state.
MCLane == {t1, t2}             \* Two threads on the attempt: the application and the watchdog.
MCTtl == {4}                   \* The TTLs a caller may ask for.
MCFaults == {}                 \* The faults that may happen.
MCDurability == "ClockFloor"   \* The adapter's default.
MCMaxCalls == 3                \* The calls the clients send in all.

(* A success is kept from ACTIVE only by a release ambiguous or still in   *)
(* flight when its reply arrives, not by one in flight at any time during  *)
(* its flight (the window).                                                *)
MCReleaseMayDelete(a, l) == ambiguousRelease[a] \/ ReleaseInFlight(a, Lane)
=============================================================================
