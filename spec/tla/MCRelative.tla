----------------------------- MODULE MCRelative -----------------------------
(***************************************************************************)
(* What the liveness configurations (MCLiveness, MCWaiting) share.  TLC    *)
(* checks liveness only on a finite state graph that no constraint cuts (a *)
(* cut behaviour would make the fairness false, and every property true),  *)
(* and without view or symmetry (with them, TLC may miss a violation).  So *)
(* these models keep the graph finite in its own state: a relative clock,  *)
(* in which now stays 0 and each tick moves every stored time one tick     *)
(* back; times that can no longer decide anything are held at the value    *)
(* the view holds them at (MCBase, parts 1 and 2), and the call and grant  *)
(* counters, which nothing there reads, stay 0.  Why that changes no       *)
(* verdict: spec/README.md.                                                *)
(***************************************************************************)
EXTENDS MCBase

(* Server s one tick later, on the relative clock: its key's expiry one    *)
(* tick closer.  (A key still there has an expiry after the tick's now;    *)
(* the Max keeps a defect that never expires keys finite.)                 *)
Shifted(s) == IF s.holder = None THEN s ELSE [s EXCEPT !.expiry = Max(s.expiry - 1, now)]

(* Call c's start one tick later, on the relative clock, where cl is the   *)
(* client's clock after the tick: one tick back, held where it is spent.   *)
StartAfterTick(c, cl) == Max(c.start - 1, cl - c.ttl + Drift)

(* A defect of the relative clock, for Breakers.tla: a call's start does   *)
(* not move back with the other times.                                     *)
StartKept(c, cl) == c.start

(* Tick(d) on the relative clock: now stays, the client's clock falls d    *)
(* behind, and every stored time moves one tick back.  A live handle's     *)
(* deadline and a call's start stop at the value at which they are spent   *)
(* (MCView part 2): the client's clock, and that less TTL plus drift.      *)
RelativeTick(d) ==
    LET c == cnow - d IN   \* The client's clock after the tick, on the relative clock.
    /\ lag + d <= Drift
    /\ lag' = lag + d
    /\ srv' = Shifted(Expired(srv, now + 1))
    /\ replica' = Shifted(Expired(replica, now + 1))
    /\ dl' = [a \in Attempt |-> IF hs[a] \in Live THEN Max(dl[a] - 1, c) ELSE dl[a]]
    /\ call' = [a \in Attempt |-> [l \in Lane |->
                  IF call[a][l].kind \in {"acquire", "renew"}
                  THEN [call[a][l] EXCEPT !.start = StartAfterTick(call[a][l], c)]
                  ELSE call[a][l]]]
    /\ UNCHANGED <<now, sent, hs, tok, hgrant, hfrom, ambiguousRenewCap, ambiguousRelease, seen,
                   acquireUnsure, delayed, storeVars, grants, calls>>

(* Send without counting the calls, and scripts without counting grants:   *)
(* nothing in this model reads either count.                               *)
UncountedSend(a, l, k, t) ==
    /\ call' = [call EXCEPT ![a] = [m \in Lane |-> IF m = l THEN Opened(a, l, k, t)
                                                   ELSE Widened(call[a][m], k, t)]]
    /\ calls' = calls
UncountedGrants(k, r) == grants
=============================================================================
