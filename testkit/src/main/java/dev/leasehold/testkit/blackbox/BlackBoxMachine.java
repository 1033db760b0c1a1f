package dev.leasehold.testkit.blackbox;

import dev.leasehold.testkit.blackbox.LaneAction.Delayed;
import dev.leasehold.testkit.blackbox.LaneAction.LoseReply;
import dev.leasehold.testkit.blackbox.LaneAction.Pause;
import dev.leasehold.testkit.blackbox.LaneAction.Release;
import dev.leasehold.testkit.blackbox.LaneAction.Renew;
import dev.leasehold.testkit.blackbox.LaneAction.Replay;
import dev.leasehold.testkit.blackbox.LaneAction.State;
import dev.leasehold.testkit.blackbox.LaneAction.Tick;
import dev.leasehold.testkit.blackbox.LaneAction.TryAcquire;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Param;
import dev.leasehold.testkit.runner.StateMachine;
import dev.leasehold.testkit.runner.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * The black-box lane as a state machine for {@link dev.leasehold.testkit.runner.PropertyRunner}:
 * each chain step is decoded once into a typed {@link LaneAction}, so chain files keep the
 * runner's {@code name(param=value)} lines.
 *
 * <p>One run at a time: its chains share the run's {@link Judge}.
 */
final class BlackBoxMachine implements StateMachine<LaneWorld> {
  static final int CLIENTS = 2;

  private final LockLibrary library;
  private final ServerView server;
  private final Runnable flush;
  private final int redisPort;
  private final Duration commandTimeout;
  private final long maxTtlMs;
  private final Judge judge;

  BlackBoxMachine(LockLibrary library, ServerView server, Runnable flush, int redisPort, Duration commandTimeout,
      long maxTtlMs, Judge judge) {
    this.library = library;
    this.server = server;
    this.flush = flush;
    this.redisPort = redisPort;
    this.commandTimeout = commandTimeout;
    this.maxTtlMs = maxTtlMs;
    this.judge = judge;
  }

  @Override
  public LaneWorld setUp(long seed) {
    flush.run();
    try {
      return new LaneWorld(library, server, redisPort, CLIENTS, commandTimeout, maxTtlMs, judge);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(library.name() + ": could not connect a client: " + e, e);
    }
  }

  @Override
  public List<ActionKind<LaneWorld>> actions() {
    Param client = new Param("client", 0, CLIENTS - 1);
    // TTLs from a fifth of the longest: a grant that short may expire within one tick.
    Param ttlMs = new Param("ttlMs", Math.max(50, maxTtlMs / 5), maxTtlMs);
    // Ticks up to half the longest TTL, so grants often outlive one tick but not several and steps
    // meet both live and expired grants; pauses up to twice the longest TTL, so that a paused
    // holder's lease (a watchdog's too) often runs out while it cannot renew.
    Param tickMs = new Param("ms", 10, maxTickMs());
    Param pauseMs = new Param("ms", 10, maxPauseMs());
    // Reply delays as long as ticks: a lock set just before one often runs out during it.
    Param delayMs = new Param("ms", 10, maxTickMs());
    return List.of(
        kind("tryAcquire", 12, List.of(client, ttlMs), a -> new TryAcquire((int) a[0], a[1])),
        kind("replay", 8, List.of(client, ttlMs), a -> new Replay((int) a[0], a[1])),
        kind("renew", 8, List.of(client, ttlMs), a -> new Renew((int) a[0], a[1]), outlivedClient()),
        kind("release", 5, List.of(client), a -> new Release((int) a[0]), outlivedClient()),
        kind("state", 8, List.of(client), a -> new State((int) a[0])),
        kind("tick", 8, List.of(tickMs), a -> new Tick(a[0]), nearExpiry(0, -60, 30)),
        kind("pause", 4, List.of(client, pauseMs), a -> new Pause((int) a[0], a[1])),
        kind("loseReply", 2, List.of(client), a -> new LoseReply((int) a[0])),
        kind("delayedAcquire", 3, List.of(client, ttlMs, delayMs), a -> new Delayed(new TryAcquire((int) a[0], a[1]), a[2]),
            grantOutlivesReply(ttlMs)),
        kind("delayedRenew", 3, List.of(client, ttlMs, delayMs), a -> new Delayed(new Renew((int) a[0], a[1]), a[2]),
            delayNearExpiry(2)),
        kind("delayedRelease", 4, List.of(client, delayMs), a -> new Delayed(new Release((int) a[0]), a[1]),
            delayNearExpiry(1)));
  }

  /**
   * Three times in four, when the lock on the server runs out within a reply delay's range and the
   * other client could try meanwhile, a call of its holder with a delay (parameter {@code msIndex})
   * that the lock runs out during (5 to 60 ms before it ends): the call's first command meets the
   * holder's own lock, a second one may meet the other client's. Uniform otherwise.
   */
  private Generator delayNearExpiry(int msIndex) {
    return (world, random, uniform) -> {
      OptionalLong left = world.lockMsLeft();
      OptionalInt holder = world.serverHolder();
      long room = maxTickMs() - (left.isPresent() ? left.getAsLong() : maxTickMs());
      if (holder.isPresent() && world.canContend(holder.getAsInt()) && room > 5 && random.nextInt(4) > 0) {
        uniform[0] = holder.getAsInt();
        uniform[msIndex] = left.getAsLong() + random.nextLong(5, Math.min(60, room) + 1);
      }
      return uniform;
    };
  }

  /**
   * Half the time, an acquire whose grant runs out while its reply is held (the delay 5 to 60 ms
   * longer than the TTL): the client learns of a grant the other client may already hold.
   */
  private Generator grantOutlivesReply(Param ttlMs) {
    return (world, random, uniform) -> {
      long longest = maxTickMs() - 60;
      if (longest > ttlMs.min() && random.nextBoolean()) {
        uniform[1] = random.nextLong(ttlMs.min(), longest + 1);
        uniform[2] = uniform[1] + random.nextLong(5, 61);
      }
      return uniform;
    };
  }

  /**
   * Three times in four, the client (parameter 0) is one whose grant the lock on the server no
   * longer is, if there is one: a release or renew then meets another client's lock, or a free key.
   */
  private static Generator outlivedClient() {
    return (world, random, uniform) -> {
      OptionalInt outlived = world.outlivedHolder();
      if (outlived.isPresent() && random.nextInt(4) > 0) {
        uniform[0] = outlived.getAsInt();
      }
      return uniform;
    };
  }

  /**
   * Half the time, the time parameter at {@code index} ends near the instant the lock now on the
   * server runs out (between {@code fromMs} and {@code toMs} after it), where timing defects live: a
   * tick that lets a grant run out just before another client asks, or one that leaves its holder a
   * few ms. Uniform otherwise, and when nothing is held.
   */
  private static Generator nearExpiry(int index, long fromMs, long toMs) {
    return (world, random, uniform) -> {
      OptionalLong left = world.lockMsLeft();
      if (left.isPresent() && random.nextBoolean()) {
        long near = left.getAsLong() + random.nextLong(fromMs, toMs + 1);
        if (near >= 10) {
          uniform[index] = near;
        }
      }
      return uniform;
    };
  }

  private long maxTickMs() {
    return maxTtlMs / 2;
  }

  /** The longest pause: what a rewritten tick may last (a chain replays ticks of any length). */
  private long maxPauseMs() {
    return 2 * maxTtlMs;
  }

  /**
   * Two adjacent ticks merged into one, then each pause written as a tick of the same time: a pause
   * of a client whose calls no longer matter is only time passing.
   */
  @Override
  public List<List<Step>> rewrites(List<Step> chain) {
    List<List<Step>> rewrites = new ArrayList<>();
    for (int i = 0; i + 1 < chain.size(); i++) {
      if (isTick(chain.get(i)) && isTick(chain.get(i + 1))) {
        long sum = chain.get(i).arg(0) + chain.get(i + 1).arg(0);
        if (sum <= maxPauseMs()) {
          rewrites.add(replaced(chain, i, 2, tick(sum)));
        }
      }
    }
    for (int i = 0; i < chain.size(); i++) {
      if (chain.get(i).action().equals("pause")) {
        rewrites.add(replaced(chain, i, 1, tick(chain.get(i).arg(1))));
      }
    }
    return rewrites;
  }

  /** {@code chain} with its {@code count} steps from {@code from} replaced by {@code step}. */
  private static List<Step> replaced(List<Step> chain, int from, int count, Step step) {
    List<Step> rewritten = new ArrayList<>(chain.subList(0, from));
    rewritten.add(step);
    rewritten.addAll(chain.subList(from + count, chain.size()));
    return rewritten;
  }

  private static boolean isTick(Step step) {
    return step.action().equals("tick");
  }

  private static Step tick(long ms) {
    return new Step("tick", new long[] {ms});
  }

  @Override
  public void checkInvariants(LaneWorld world) {
    world.checkBetweenSteps();
  }

  @Override
  public void tearDown(LaneWorld world) {
    world.close();
  }

  private static ActionKind<LaneWorld> kind(String name, int weight, List<Param> params,
      Function<long[], LaneAction> decode) {
    return kind(name, weight, params, decode, (world, random, uniform) -> uniform);
  }

  private static ActionKind<LaneWorld> kind(String name, int weight, List<Param> params,
      Function<long[], LaneAction> decode, Generator generator) {
    return new Kind(name, weight, params, decode, generator);
  }

  /** Generates a step's parameters from uniform ones and what the chain's world shows. */
  @FunctionalInterface
  private interface Generator {
    long[] generate(LaneWorld world, SplittableRandom random, long[] uniform);
  }

  /** A step kind: its parameters are decoded once into the typed action the world runs. */
  private record Kind(String name, int weight, List<Param> params, Function<long[], LaneAction> decode,
      Generator generator) implements ActionKind<LaneWorld> {
    @Override
    public long[] generate(LaneWorld world, SplittableRandom random) {
      return generator.generate(world, random, ActionKind.super.generate(world, random));
    }

    @Override
    public boolean enabled(LaneWorld world, long[] args) {
      return world.enabled(decode.apply(args));
    }

    @Override
    public String run(LaneWorld world, long[] args) throws Exception {
      return world.apply(decode.apply(args));
    }
  }
}
