------------------------------- MODULE Breakers ------------------------------
(***************************************************************************)
(* Defective versions of Lease.tla's operators, one defect each, to show   *)
(* that every property a passing configuration lists can fail there.       *)
(* ModelCheckTest checks each passing MC*.cfg once more per property it    *)
(* lists: with only that property, and with the overrides a BREAK line     *)
(* below names for it (a line with IN applies only to those                *)
(* configurations, one without to every other); TLC must report the        *)
(* property violated, first with one thread (unless the line says WITH     *)
(* TWO THREADS), then with all of the configuration's.  A property listed  *)
(* with no BREAK line for its configuration fails the build: a check that  *)
(* cannot fail is not listed.                                              *)
(* The defect configurations (MC<Defect>.tla) use these operators too.     *)
(***************************************************************************)
EXTENDS Lease

(* BREAK NoInheritance: SameValue <- OwnerOnlySameValue                    *)
(* The key's value h is "the same" as attempt a when they share the owner  *)
(* token.                                                                  *)
OwnerOnlySameValue(h, a) == h # None /\ OwnerOf[h] = OwnerOf[a]

(* BREAK ActiveHoldsKey: Observed <- ObservedWithoutExpiry                 *)
(* BREAK MutualExclusion: Observed <- ObservedWithoutExpiry                *)
(* state() ignores the local deadline: a handle says ACTIVE after its key  *)
(* expired.                                                                *)
ObservedWithoutExpiry(a) == IF hs[a] = "ACTIVE" /\ OwnInFlight(a, "release") THEN "UNKNOWN" ELSE hs[a]

(* BREAK ValidityWithinServerLease: NewDeadline <- DeadlineWithoutDrift    *)
(* BREAK BudgetWithinTtl: NewDeadline <- DeadlineWithoutDrift              *)
(* A reply's deadline does not take off the drift budget.                  *)
DeadlineWithoutDrift(a, l) == call[a][l].start + Min(Granted(a, l), BudgetCap(a, l))

(* BREAK TerminalStays: StoredState <- StateNotStored                      *)
(* Local expiry is never stored: state() computed LOST, and neither it nor *)
(* a reply stored it.                                                      *)
StateNotStored(a) == hs[a]

\* BREAK TerminalStays IN MCLease, MCLeaseThreads: State <- StateToldNotStored
(* state() on local expiry tells its caller LOST but leaves the handle's   *)
(* stored state as it was: when the deadline has passed only because a    *)
(* renew in flight caps it, the renew's refusal lifts the cap and the      *)
(* handle reads ACTIVE again.  (Where refusals are not modelled, the       *)
(* general breaker above stores nothing at all.)                           *)
StateToldNotStored(a) ==
    /\ hs[a] \in Live /\ cnow >= Deadline(a)
    /\ seen[a] # "LOST"
    /\ Handle(a, hs[a], dl[a], tok[a], hgrant[a], "LOST", hfrom[a], acquireUnsure[a])
    /\ UNCHANGED <<now, lag, srv, replica, call, sent, delayed, storeVars, grants, calls>>

\* BREAK FencedEffects IN MCLeaseFencing, DeepLeaseFencing: NextToken <- CounterOnlyToken
(* Tokens from the counter alone, which a failover may take back.          *)
CounterOnlyToken(s) == s.fence + 1

(* BREAK FencedEffects IN MCLeaseReplicaAck: Acked <- NoWait               *)
(* A token is reported without WAIT for the replica.                       *)
NoWait(a, l) == TRUE

(* BREAK StateOutcomeAgreement: RenewReply <- AlwaysRenewed                *)
(* A renew's reply 1 returns Renewed whatever state it leaves.             *)
AlwaysRenewed(a, l) ==
    LET d == NewDeadline(a, l) IN
    [state |-> IF StoredState(a) \in Live THEN Fresh(a, l, d) ELSE StoredState(a),
     deadline |-> d, outcome |-> "Renewed"]

(* BREAK ReplayNeverExtends: ReplayedServer <- ReplayExtends               *)
(* The replay branch sets the key's TTL to the one asked for.              *)
ReplayExtends(s, t) == [s EXCEPT !.expiry = now + t]

(* BREAK CertaintyIsHonest: Refuse <- RefuseAfterRunning                   *)
(* A refusal (Overloaded) that came after the script ran.                  *)
RefuseAfterRunning(a, l) ==
    /\ "Refuse" \in Faults
    /\ call[a][l].phase = "sent"
    /\ LET c == call[a][l]
           r == Script(srv, a, c.kind, c.ttl) IN
       /\ srv' = r[1]
       /\ grants' = GrantsAfter(c.kind, r[2])
       /\ call' = [call EXCEPT ![a][l] = Forgotten(c, "refused")]
    /\ UNCHANGED <<now, lag, replica, sent, handleVars, delayed, storeVars, calls>>

(* BREAK NoSendAfterEnd: CanRenew <- RenewAnyHandle                        *)
(* Any handle may send a renew, LOST and RELEASED ones too.                *)
RenewAnyHandle(a, l) == hs[a] # "NONE"

(* BREAK UnknownGrowsOnlyOnSuccess: UnansweredRenewDeadline <- RenewTrusted *)
(* An unanswered renew gives the handle the deadline the renew would have  *)
(* given, as if it had run.                                                *)
RenewTrusted(a, l) == call[a][l].start + call[a][l].ttl - Drift

(* BREAK LossIsReported: UnansweredRenewState <- StateKept                 *)
(* An unanswered renew caps the deadline and the ledger as it should, but  *)
(* leaves the handle's state as it was: state() still says ACTIVE.         *)
StateKept(a) == hs[a]

(* BREAK NoLeaseLeftBehind: RefusedOutcome <- RefusedReleaseAbsent         *)
(* A refused release returns AlreadyAbsent (and so Deliver ends the handle *)
(* RELEASED, as for a reply 0).                                            *)
RefusedReleaseAbsent(a, l) == IF call[a][l].kind = "release" THEN "AlreadyAbsent" ELSE "Overloaded"

\* BREAK StaleReplyChangesNoHandle WITH TWO THREADS: RenewReplyIgnored <- StaleRenewHeeded
(* A renew's reply is applied to the attempt's handle even when a newer    *)
(* handle replaced the one that sent it.                                   *)
StaleRenewHeeded(a, l) == hs[a] \in Terminal

(* The liveness properties' breakers (MCLiveness, MCWaiting, MCWatched).   *)

(* BREAK ExpiredLeaseComesFree: Expired <- NeverExpired                    *)
(* The server never forgets a key: a key lives for ever.                   *)
NeverExpired(s, t) == s

(* BREAK EveryCallReturns: GivesUp <- WaitsForLostReply                    *)
(* The client waits for a lost reply for ever (no command timeout).        *)
WaitsForLostReply(c) == c.phase = "sent" /\ "Delay" \in Faults

\* BREAK UnknownIsSettled IN MCLiveness: StoredState <- StateNotStored
(* (StateNotStored above: local expiry is never stored, so an UNKNOWN      *)
(* handle past its deadline stays UNKNOWN.)                                *)

\* BREAK ActiveHoldsKey IN MCLiveness, MCWaiting, MCWatched: StartAfterTick <- StartKept
\* BREAK ValidityWithinServerLease IN MCLiveness, MCWaiting, MCWatched: StartAfterTick <- StartKept
(* The relative clock (MCRelative.tla, which defines StartKept) moves      *)
(* every stored time back a tick but a call's start: a reply measures its  *)
(* budget from a start one tick late for each tick in flight.              *)

(* BREAK WaitLoopWakes: Retry <- SleepsThroughRelease                      *)
(* The wait loop tries again only while the key is held: once its holder   *)
(* released it or it expired, the waiter sleeps on.                        *)
SleepsThroughRelease(a) == srv.holder # None /\ Waiting(a) /\ \E l \in Lane, t \in Ttl : Replay(a, l, t)

(* BREAK WaiterIsGranted: AcquireScript <- NeverGrants                     *)
(* acquire.lua answers Contended whatever the key holds: no grant is ever  *)
(* given.                                                                  *)
NeverGrants(s, a, t) ==
    << s, [status |-> 0, pttl |-> 0, token |-> 0, grant |-> 0, same |-> FALSE, holder |-> None] >>

(* BREAK RenewedWhenDue: RenewNow <- SilentWatchdog                        *)
(* The watchdog sends nothing when a renewal is due.                       *)
SilentWatchdog(a) == FALSE

(* BREAK WatchedStaysActive: Due <- DueWhenSpent                           *)
(* The watchdog plans its renewal at the deadline itself, when the budget  *)
(* is already spent.                                                       *)
DueWhenSpent(a) == Observed(a) = "ACTIVE" /\ Quiet(a) /\ Deadline(a) - cnow <= 0

=============================================================================
