package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.fault.Fault;
import dev.leasehold.testkit.fault.FaultyGateway;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Which attempt or handle a chain's choice names, and which choices a step has: a
 * {@link ChainAction}'s {@code attempt} or {@code handle} picks, modulo their number, among those
 * the step may use. In a chain that conforms to the spec the choices are the spec's: one handle
 * per attempt, owners as {@link LeaseMachine#SPEC_OWNERS}, one delayed request at a time.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class Targets {
  /** Faults armed at once at most. */
  private static final int MAX_ARMED = 3;
  private final boolean specConformant;
  private final AdapterAttempts attempts;
  private final AdapterHandles handles;
  private final FaultyGateway gateway;
  private final Oracle oracle;

  Targets(boolean specConformant, AdapterAttempts attempts, AdapterHandles handles, FaultyGateway gateway,
      Oracle oracle) {
    this.specConformant = specConformant;
    this.attempts = attempts;
    this.handles = handles;
    this.gateway = gateway;
    this.oracle = oracle;
  }

  /** The attempt a new one shares its owner token with (-1 for a new owner): chosen by the chain, or by SPEC_OWNERS. */
  int shareWith(long choice) {
    if (!specConformant) {
      return (int) choice - 1;
    }
    List<Integer> owners = LeaseMachine.SPEC_OWNERS;
    int n = attempts.size();
    return owners.subList(0, n).indexOf(owners.get(n));
  }

  /** The attempts not yet sent: a tryAcquire's choices. */
  List<Integer> unsent() {
    return IntStream.range(0, attempts.size()).filter(a -> !oracle.twin().sent(a)).boxed().toList();
  }

  /** The attempts a replay may send again: sent ones, in a conforming chain only those without a live handle. */
  List<Integer> replayable() {
    return IntStream.range(0, attempts.size())
        .filter(a -> oracle.twin().sent(a) && (!specConformant || oracle.twin().liveHandleOf(a) < 0))
        .boxed().toList();
  }

  static int pick(List<Integer> from, long choice) {
    return from.get((int) (choice % from.size()));
  }

  /** The handle {@code choice} names among the pickable ones. */
  int handle(long choice) {
    List<Integer> ids = pickable();
    return ids.get((int) (choice % ids.size()));
  }

  /** The handle {@code choice} names counting back from the newest (a live one, mostly, which the races need). */
  int fromNewest(long choice) {
    List<Integer> ids = pickable();
    return ids.get(ids.size() - 1 - (int) (choice % ids.size()));
  }

  /**
   * The handles an action may use: all, or in a chain that conforms to the spec each attempt's
   * newest, the one the spec's single handle per attempt ({@code hs[a]}) stands for. An attempt
   * gets a second handle only from a replay of a concurrent step that superseded the first.
   */
  private List<Integer> pickable() {
    List<Integer> ids = IntStream.range(0, handles.size()).boxed().toList();
    return specConformant ? ids.stream().filter(handles::isNewest).toList() : ids;
  }

  /** The spec's set of delayed requests holds one of two equal ones: conforming chains delay one at a time. */
  boolean mayArm(Fault f) {
    return gateway.armedCount() < MAX_ARMED && (!specConformant || f != Fault.TIMEOUT
        || gateway.delayed().isEmpty() && !gateway.isArmed(Fault.TIMEOUT));
  }
}
