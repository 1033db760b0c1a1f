----------------------------- MODULE LeaseTrace -----------------------------
(***************************************************************************)
(* Trace validation: does a run of the Java adapter, recorded by the       *)
(* model tests, follow Lease.tla step by step?                            *)
(*                                                                         *)
(* The model tests (model-tests, dev.leasehold.model.trace) record each    *)
(* chain on the simulated gateway and write it as a sequence of events.    *)
(* One Java call becomes the spec steps it is made of (a renew whose reply *)
(* was lost is Renew, Apply, LoseReply, Timeout), time becomes Tick steps, *)
(* and after every chain step an "obs" event states what the               *)
(* implementation looked like: the server's key and counter, and every    *)
(* handle's state(), remainingValidity() and fencing token.  A generated   *)
(* MCLeaseTraces.tla binds Traces to many such sequences; TLC follows all  *)
(* of them at once, one per initial state (the variable j), and prints     *)
(* <<"matched", j, k>> for each event k of trace j that it could match.    *)
(* A trace is accepted when all its events matched; otherwise the first    *)
(* event TLC could not match is where the Java run left the spec.          *)
(*                                                                         *)
(* On the simulated grid every event is deterministic given the state     *)
(* (each names its action and parameters; a Tick names its drift d), so    *)
(* "could not match" is not a wrong guess earlier on: the spec allows no   *)
(* step there at all.  On real time an Elapse may move the clock to any    *)
(* tick of a window, and TLC follows every choice: the first event no      *)
(* choice could match is where the run left the spec.                      *)
(*                                                                         *)
(* Lanes: a concurrent step of the model tests (a replay beside a renew   *)
(* or a release of the same attempt, on two threads) is two lanes, the    *)
(* replay on lane 1 and the other call on lane 2; its events name their   *)
(* lane (e.l), interleaved as the threads reached the gateway's send,     *)
(* server step and reply.  Every other event is on lane 1.                 *)
(*                                                                         *)
(* The wait loop of tryAcquire (RedisLeaseAdapter), which Lease.tla leaves *)
(* out, is its tries: each a TryAcquire or Replay of the same attempt, the *)
(* pauses between them Tick steps.  A try the loop retried is delivered    *)
(* with out = "retry": the spec's result must be one the loop retries.     *)
(* The last try gives the call's outcome, by the loop's honest rule when   *)
(* an earlier try was ambiguous (e.amb): Unavailable and Overloaded become *)
(* Indeterminate, since the earlier try may have been applied.             *)
(*                                                                         *)
(* Time: one tick is one simulated 10 ms, and Drift is 1 tick.  Tokens are *)
(* checked exactly (Faults includes "Pause", so TrackTokens): COUNTER      *)
(* against Durability "Plain", CLOCK_FLOOR against "ClockFloor" (the trace *)
(* shifts the Java tokens, see SpecTrace.of), and an adapter with replica  *)
(* acknowledgement against "ReplicaAck": its WAIT, answered, is a          *)
(* "replicate" event between the script's Apply and the reply's Deliver.  *)
(*                                                                         *)
(* Real time (chains on a real redis-server, FenceMode.COUNTER): a tick is *)
(* 1 ms, and since the real clocks cannot be put on the grid exactly (the  *)
(* client's clock is frozen per step while the server's runs on, a script  *)
(* runs at an instant known only within a window, Redis rounds to its own  *)
(* ms), time is "elapse" events to any tick of a window the real clocks    *)
(* prove, and the obs event bounds expiries and deadlines by windows.      *)
(* Outcomes, the holder, the counter, handle states and tokens compare     *)
(* exactly.                                                                *)
(***************************************************************************)
EXTENDS Lease, Sequences, TLC

CONSTANT Traces   \* A sequence of traces; each trace is a sequence of event records (see EventStep).

VARIABLES
    j,  \* The trace being followed (fixed in the initial state).
    i   \* How many of its events matched so far.

traceVars == <<vars, j, i>>   \* All variables: Lease.tla's and the trace position.

ASSUME Lane = 1..Cardinality(Lane)   \* Lanes are numbered: lane 1 and, with concurrent steps, lane 2.

(* The lane of event e: the one it names, else lane 1.                     *)
LaneOf(e) == IF "l" \in DOMAIN e THEN e.l ELSE 1

(* The outcomes after which the wait loop tries again.                    *)
RetryOutcomes == {"Contended", "Unavailable", "Overloaded", "Indeterminate"}

(* The wait loop's honest rule: after an ambiguous try, a later try that   *)
(* certainly did not apply does not make the whole call certain.           *)
Honest(r, amb) == IF amb /\ r \in {"Unavailable", "Overloaded"} THEN "Indeterminate" ELSE r

(* A try's outcome against the spec's result r: any retried one for a try  *)
(* the loop retried, else r by the honest rule.                            *)
OutcomeAgrees(e, r) == IF e.out = "retry" THEN r \in RetryOutcomes ELSE e.out = Honest(r, e.amb)

(* Event e.holder names an attempt, or is 0 for "the key is absent".       *)
HolderIs(h) == IF h = 0 THEN srv.holder = None ELSE srv.holder = h

(* An "obs" event: the implementation right after a chain step agrees     *)
(* with the spec's state.  remainingValidity() is 0 unless ACTIVE.  On    *)
(* real time (a real-server chain) the event bounds the key's expiry and  *)
(* each ACTIVE handle's deadline by windows instead of stating the clocks, *)
(* the expiry and the remaining validity (see Elapse).                     *)
ObsAgrees(e) ==
    /\ "now" \in DOMAIN e => now = e.now /\ cnow = e.cnow
    /\ HolderIs(e.holder)
    /\ e.holder # 0 => IF "exp" \in DOMAIN e THEN srv.expiry = e.exp ELSE srv.expiry \in e.expLo..e.expHi
    /\ srv.fence = e.fence
    /\ \A a \in Attempt :
          /\ Observed(a) = e.hs[a]
          /\ IF "rem" \in DOMAIN e
             THEN (IF Observed(a) = "ACTIVE" THEN Deadline(a) - cnow ELSE 0) = e.rem[a]
             ELSE Observed(a) = "ACTIVE" => Deadline(a) \in e.dlLo[a]..e.dlHi[a]
          /\ tok[a] = e.tok[a]

(* An "inspect" event: RedisLeaseAdapter.inspect's result against          *)
(* InspectReply.  A call that met a fault reports only that it could not   *)
(* tell.                                                                   *)
InspectAgrees(e) ==
    LET r == InspectReply(e.a) IN
    IF e.faulted THEN e.out \in {"Unavailable", "Indeterminate", "Overloaded"}
    ELSE IF r.held THEN /\ e.out = "Held" /\ e.mine = r.mine
                        /\ e.pttl >= 0 => e.pttl = r.pttl            \* -1: not compared (real time)
                        /\ "token" \in DOMAIN e => e.token = r.token  \* absent: not stated
    ELSE e.out = "Absent"

(* A "local" event: a call that sent nothing.  Lease.tla has these as      *)
(* stuttering steps; here we check that the Java outcome is one a call     *)
(* without I/O may give: a TTL <= drift rejected, or NotActive when the    *)
(* spec's Renew or Release is not enabled.                                 *)
LocalAgrees(e) ==
    CASE e.out = "IllegalArgumentException" -> e.kind # "release" /\ ~TtlOk(e.t)
      [] e.out = "NotActive" /\ e.kind = "renew" -> ~CanRenew(e.a, LaneOf(e))
      [] e.out = "NotActive" /\ e.kind = "release" -> ~(hs[e.a] \in Live /\ Observed(e.a) # "LOST")
      [] OTHER -> FALSE

(* The send that starts a call of kind e.kind with TTL e.t (0 for release). *)
SendStep(e) ==
    LET l == LaneOf(e) IN
    CASE e.kind = "acquire" -> TryAcquire(e.a, l, e.t) \/ Replay(e.a, l, e.t)
      [] e.kind = "renew"   -> Renew(e.a, l, e.t)
      [] e.kind = "release" -> Release(e.a, l)

(* Real time: the spec's clock moves to any tick of [e.lo, e.hi] that is  *)
(* not in its past, as that many Tick(0) steps would (the client's clock  *)
(* is the server's: lag 0).  The real clocks prove the instant lies in     *)
(* the window; TLC follows every choice the later events allow.            *)
Elapse(e) ==
    \E t \in Max(now, e.lo)..e.hi :
        /\ now' = t
        /\ srv' = Expired(srv, t)
        /\ replica' = Expired(replica, t)
        /\ UNCHANGED <<lag, call, sent, handleVars, delayed, storeVars, grants, calls>>

(* Event e is one step of Lease.tla (or a check on a stuttering step).     *)
EventStep(e) ==
    CASE e.op = "send"    -> SendStep(e)
      [] e.op = "apply"   -> Apply(e.a, LaneOf(e))
      [] e.op = "lose"    -> LoseReply(e.a, LaneOf(e))
      [] e.op = "refuse"  -> Refuse(e.a, LaneOf(e))
      [] e.op = "timeout" -> /\ Timeout(e.a, LaneOf(e))   \* Lost: a renew whose handle is LOST by local expiry
                             /\ \/ e.out = "Indeterminate"
                                \/ e.out = "Lost" /\ Observed(e.a)' = "LOST"
      [] e.op = "deliver" -> /\ call[e.a][LaneOf(e)].phase \in {"replied", "refused"}
                             /\ OutcomeAgrees(e, ResultOf(e.a, LaneOf(e)))
                             /\ e.oexp >= 0 => ObservedExpiry(e.a, LaneOf(e)) = e.oexp
                             /\ Deliver(e.a, LaneOf(e))
      [] e.op = "late"    -> LET m == [a |-> e.a, kind |-> e.kind, ttl |-> e.t] IN
                             m \in delayed /\ ApplyLate(m)
      [] e.op = "tick"    -> Tick(e.d)
      [] e.op = "elapse"  -> Elapse(e)
      [] e.op = "restart" -> Restart
      [] e.op = "replicate" -> \* WAIT answered: the replica has the primary's state (maybe already)
                             Replicate \/ (replica = srv /\ UNCHANGED vars)
      [] e.op = "state"   -> /\ State(e.a) \/ (~ENABLED State(e.a) /\ UNCHANGED vars)
                             /\ Observed(e.a)' = e.out
      [] e.op = "effect"  -> IF e.out = "accepted"
                             THEN \/ Effect(e.a)
                                  \/ /\ UNCHANGED vars   \* the same write again changes nothing
                                     /\ hs[e.a] # "NONE" /\ tok[e.a] = storeHigh
                                     /\ storeLast = hgrant[e.a]
                             ELSE UNCHANGED vars /\ ~(hs[e.a] # "NONE" /\ tok[e.a] >= storeHigh)
      [] e.op = "local"   -> UNCHANGED vars /\ LocalAgrees(e)
      [] e.op = "notsent" -> \* the connection was known down: a call the spec would send
                             UNCHANGED vars /\ OutcomeAgrees(e, "Unavailable") /\ ENABLED SendStep(e)
      [] e.op = "inspect" -> UNCHANGED vars /\ InspectAgrees(e)
      [] e.op = "obs"     -> UNCHANGED vars /\ ObsAgrees(e)

(* Lease.tla's initial state, at the start of any one trace.              *)
TraceInit == Init /\ j \in 1..Len(Traces) /\ i = 0

(* Match the next event of trace j, or stay once all of it matched (so     *)
(* that a finished trace is no deadlock; TLC runs with -deadlock anyway).  *)
TraceNext ==
    \/ /\ i < Len(Traces[j])
       \* Bound to a value first: an operator argument is re-evaluated at each use, and
       \* TLC cannot evaluate the state variable j inside ENABLED.
       /\ \E e \in {Traces[j][i + 1]} : EventStep(e)
       /\ i' = i + 1
       /\ UNCHANGED j
       /\ PrintT(<<"matched", j, i + 1>>)
    \/ /\ i = Len(Traces[j])
       /\ UNCHANGED traceVars
=============================================================================
