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
EXTENDS MCBase

MCAttempt == {a1, a2, a3}                      \* 3 attempts of 2 owners.
MCLane == {t1}                                 \* One thread per attempt.
MCTtl == {3, 4}                                \* The TTLs a caller may ask for.
MCFaults == {"LoseReply", "Delay", "Refuse"}   \* The faults that may happen.
MCDurability == "ClockFloor"                   \* The adapter's default.
MCMaxCalls == 3                                \* The calls the clients send in all.

(* ResultOf, except that a refused release returns AlreadyAbsent (and so   *)
(* Deliver ends the handle RELEASED, as for a reply 0).                    *)
MCResultOf(a, l) ==
    LET c == call[a][l]
        r == c.reply IN
    CASE c.phase = "refused" /\ c.kind = "release" -> "AlreadyAbsent"
      [] c.phase = "refused" -> "Overloaded"
      [] c.ttl <= Drift /\ c.kind # "release" -> "Rejected"
      [] c.kind = "acquire" ->
            CASE r.status = 1 -> "Acquired"
              [] r.status = 2 -> "ReplayedSameOperation"
              [] r.same       -> "OwnerOperationConflict"
              [] OTHER        -> "Contended"
      [] c.kind = "renew" ->
            CASE c.stale      -> "Lost"
              [] r.status = 1 -> RenewReply(a, l).outcome
              [] OTHER        -> "Lost"
      [] c.kind = "release" ->
            CASE r.status = 1 -> "Released"
              [] r.status = 0 -> "AlreadyAbsent"
              [] OTHER        -> "NotOwner"
=============================================================================
