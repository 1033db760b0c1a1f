package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockClient;
import dev.leasehold.testkit.blackbox.LockClient.Grant;
import dev.leasehold.testkit.blackbox.LockLibrary;
import dev.leasehold.testkit.redis.RedisProcess;
import dev.leasehold.testkit.redis.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The chaos workload over any {@link LockLibrary}: three workers, each a {@link LockClient} behind
 * its own {@link TcpProxy}, contend for one resource on their own {@code redis-server} while a
 * scenario's faults run, and write each effect to a fenced store (which refuses a token lower than
 * one it took) and to an unfenced control. The run is judged on what was recorded, by the real
 * instants around each call:
 *
 * <ul>
 *   <li>a <b>stale write</b> is an effect applied after the reply of another worker's grant whose
 *       call was sent after the writer's own grant had returned: the lock had surely passed on
 *       before the write. The fenced store can refuse it only once a later holder has written,
 *       since a fence refuses only tokens below one it has seen; a stale write it takes after that
 *       is a fencing failure (the later token was not higher);
 *   <li>a <b>second holder</b> is a take of the lock (a grant, or a renewal that succeeded after the
 *       worker's hold had surely lapsed) whose call was sent after, and whose reply came before the
 *       end of, another worker's surely-held interval. A hold is surely held from the reply of the
 *       call that took it until the send of its last successful renewal (or of the grant) plus the
 *       TTL, cut at the send of its release; a watchdog's own renewals are not seen, so this is a
 *       lower bound for watchdog locks. An acquire whose outcome was unknown is followed by a
 *       release, never replayed, so every TTL counts from a send recorded here;
 *   <li>a <b>current holder refused</b> is an effect of the newest grant that the fenced store
 *       refused: its token was lower than an earlier grant's.
 * </ul>
 *
 * <p>A worker checks its belief before each effect when the library keeps one
 * ({@link LockLibrary.Traits#clientValidity()}), renews by call when it can, and otherwise trusts its
 * lock until it releases it. A paused worker stops and its connection passes nothing (so a watchdog
 * stops too), as in a stopped process.
 *
 * <p>A run shares its instance among the calling thread, its workers and the fault script: the
 * holds and every count are guarded by the instance's monitor, the fault count is atomic, and the
 * results are read after the workers were joined.
 */
final class PeerChaos {
  static final Duration TTL = Duration.ofMillis(400);
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(200);
  static final Duration RUN = Duration.ofSeconds(3);
  static final int WORKERS = 3;
  /** A worker with a client-side validity writes only with at least this much of it left. */
  static final Duration MIN_BUDGET = Duration.ofMillis(60);
  static final Duration WORK = Duration.ofMillis(40);
  static final int EFFECTS_PER_LEASE = 3;

  /** A scenario: what the fault thread does, and whether workers pause before an effect. */
  enum Scenario {
    /** Every third grant pauses before its first effect, for its validity (or TTL) + 300 ms. */
    CLIENT_PAUSE("client-pause"),
    /** Latency, dropped replies, a blackhole and resets on the workers' proxies, in turn. */
    PROXY_FAULTS("proxy-faults"),
    /** kill -9 and an empty restart, twice: the server loses the lock and its counters. */
    RESTART_LOSES_LOCK("restart-loses-lock"),
    /**
     * The replica's link is cut, the primary takes writes for 300 ms more, then the replica is
     * promoted and every client's proxy sends it their reconnections: those writes are lost.
     */
    FAILOVER_LOSES_WRITES("failover-loses-writes");

    private final String label;

    Scenario(String label) {
      this.label = label;
    }

    /** Its name in reports and server names. */
    String label() {
      return label;
    }
  }

  /**
   * What one run counted; {@code fencedStale} and {@code holderRefused} are -1 for a library
   * without tokens. {@code staleBeforeNext} counts the stale writes made before any later holder
   * had written: no store can tell them, since a fence refuses only tokens below one it has seen.
   */
  record Counts(String library, Scenario scenario, int grants, int effects, int faults, int staleUnfenced,
      int staleBeforeNext, int fencedStale, int holderRefused, int secondHolders) {}

  /** One grant: its number in the run, who holds it, its token, and when its call was sent and returned. */
  private static final class Hold {
    final int index;
    final int worker;
    final OptionalLong token;
    final long sent;
    final long granted;
    /** The intervals it was surely held in; the last one grows with renewals. Guarded by the run's monitor. */
    final List<Interval> held = new ArrayList<>();
    /** Whether an effect of this grant was applied. Guarded by the run's monitor. */
    boolean wrote;

    Hold(int index, int worker, OptionalLong token, long sent, long granted, Duration ttl) {
      this.index = index;
      this.worker = worker;
      this.token = token;
      this.sent = sent;
      this.granted = granted;
      held.add(new Interval(sent, granted, sent + ttl.toNanos()));
    }

    Interval last() {
      return held.get(held.size() - 1);
    }
  }

  /** A take of the lock (its call's send and reply) and the end of the time it was surely held. */
  private static final class Interval {
    final long sent;
    final long from;
    long until;

    Interval(long sent, long from, long until) {
      this.sent = sent;
      this.from = from;
      this.until = until;
    }
  }

  private final LockLibrary library;
  private final Scenario scenario;
  private final String resource;
  private final List<Hold> holds = new ArrayList<>();
  private final AtomicInteger faults = new AtomicInteger();
  private int effects;
  private int staleUnfenced;
  private int staleBeforeNext;
  private int fencedStale;
  private int holderRefused;
  private long fencedMax = Long.MIN_VALUE;

  private PeerChaos(LockLibrary library, Scenario scenario) {
    this.library = library;
    this.scenario = scenario;
    this.resource = "chaos-" + scenario.label();
  }

  static Counts run(LockLibrary library, Scenario scenario) throws Exception {
    return new PeerChaos(library, scenario).run();
  }

  private Counts run() throws Exception {
    String name = "peer-chaos-" + library.name() + "-" + scenario.label();
    // A replica's first sync starts at once, not after Redis' default 5 s wait for more replicas.
    try (RedisProcess redis = RedisProcess.start(name, "--repl-diskless-sync-delay", "0");
        Standby standby = scenario == Scenario.FAILOVER_LOSES_WRITES ? Standby.of(redis, name) : null) {
      List<TcpProxy> proxies = new ArrayList<>();
      List<LockClient> clients = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      try {
        for (int i = 0; i < WORKERS; i++) {
          TcpProxy proxy = TcpProxy.start("peer-chaos-" + i, redis.port());
          proxies.add(proxy);
          clients.add(library.connect(new LockLibrary.Endpoint("127.0.0.1", proxy.port(), COMMAND_TIMEOUT)));
        }
        // The run's time starts once every client is connected, however long that took.
        long endAt = System.nanoTime() + RUN.toNanos();
        for (int i = 0; i < WORKERS; i++) {
          int worker = i;
          Thread t = new Thread(() -> work(worker, clients.get(worker), proxies.get(worker), endAt), "peer-chaos-w" + i);
          t.setDaemon(true);
          threads.add(t);
        }
        threads.forEach(Thread::start);
        faults(redis, standby, proxies, endAt);
        for (Thread t : threads) {
          t.join(RUN.toMillis() + 10_000);
          if (t.isAlive()) {
            throw new IllegalStateException(library.name() + ": worker " + t.getName() + " did not stop");
          }
        }
      } finally {
        // After a failure too, no worker may use a client closed below.
        for (Thread t : threads) {
          t.interrupt();
          t.join(5_000);
        }
        proxies.forEach(TcpProxy::heal);
        for (LockClient c : clients) {
          try {
            c.close();
          } catch (Exception ignored) {
            // The run is over; a client that cannot close cleanly changes no count.
          }
        }
        proxies.forEach(TcpProxy::close);
      }
    }
    boolean fenced = library.traits().fenced();
    synchronized (this) {
      return new Counts(library.name(), scenario, holds.size(), effects, faults.get(), staleUnfenced, staleBeforeNext,
          fenced ? fencedStale : -1, fenced ? holderRefused : -1, secondHolders());
    }
  }

  // ------------------------------------------------------------------ the faults

  private void faults(RedisProcess redis, Standby standby, List<TcpProxy> proxies, long endAt) {
    switch (scenario) {
      case CLIENT_PAUSE -> sleepUntil(endAt);
      case PROXY_FAULTS -> {
        for (int wave = 0; System.nanoTime() < endAt - 500_000_000L; wave++) {
          TcpProxy p = proxies.get(wave % proxies.size());
          switch (wave % 4) {
            case 0 -> proxies.forEach(x -> x.latency(60));
            case 1 -> p.dropReplies(true);
            case 2 -> p.blackhole(true);
            default -> p.resetAll();
          }
          faults.incrementAndGet();
          sleep(Duration.ofMillis(300));
          proxies.forEach(TcpProxy::heal);
          sleep(Duration.ofMillis(200));
        }
        sleepUntil(endAt);
      }
      case RESTART_LOSES_LOCK -> {
        for (long at : new long[] {1_000, 2_000}) {
          sleepUntil(endAt - RUN.toNanos() + at * 1_000_000L);
          redis.kill();
          sleep(Duration.ofMillis(100));
          redis.restart();
          faults.incrementAndGet();
        }
        sleepUntil(endAt);
      }
      case FAILOVER_LOSES_WRITES -> {
        sleepUntil(endAt - RUN.toNanos() + 1_200_000_000L);
        standby.cut();
        sleep(Duration.ofMillis(300));
        standby.promote();
        for (TcpProxy p : proxies) {
          p.retarget(standby.port());
          p.resetAll();
        }
        redis.kill();
        faults.incrementAndGet();
        sleepUntil(endAt);
      }
    }
  }

  /** A replica of the primary, replicating through a proxy of its own so that its link alone can be cut. */
  private static final class Standby implements AutoCloseable {
    private final TcpProxy link;
    private final RedisProcess replica;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private Standby(TcpProxy link, RedisProcess replica) {
      this.link = link;
      this.replica = replica;
      this.client = RedisClient.create(replica.uri());
      this.connection = client.connect();
    }

    /** Starts the replica and waits (at most 10 s) until it is in sync; on failure stops what it started. */
    static Standby of(RedisProcess primary, String name) {
      TcpProxy link = TcpProxy.start(name + "-replication", primary.port());
      RedisProcess replica = null;
      Standby standby = null;
      try {
        replica = RedisProcess.start(name + "-replica", "--replicaof", "127.0.0.1", Integer.toString(link.port()));
        standby = new Standby(link, replica);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!standby.connection.sync().info("replication").contains("master_link_status:up")) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(name + ": the replica did not sync within 10 s");
          }
          sleep(Duration.ofMillis(20));
        }
        return standby;
      } catch (RuntimeException e) {
        if (standby != null) {
          standby.close();
        } else {
          if (replica != null) {
            replica.close();
          }
          link.close();
        }
        throw e;
      }
    }

    int port() {
      return replica.port();
    }

    /** From now on nothing the primary applies reaches the replica. */
    void cut() {
      link.blackhole(true);
    }

    void promote() {
      connection.sync().replicaofNoOne();
    }

    @Override
    public void close() {
      try {
        connection.close();
        client.shutdown();
      } finally {
        try {
          replica.close();
        } finally {
          link.close();
        }
      }
    }
  }

  // ------------------------------------------------------------------ one worker

  private void work(int worker, LockClient client, TcpProxy proxy, long endAt) {
    LockLibrary.Traits traits = library.traits();
    while (System.nanoTime() < endAt && !Thread.currentThread().isInterrupted()) {
      long sent = System.nanoTime();
      Grant grant;
      try {
        grant = client.tryAcquire(resource, TTL);
      } catch (Exception unknown) {
        releaseQuietly(client);
        backOff();
        continue;
      }
      if (!(grant instanceof Grant.Acquired acquired)) {
        backOff();
        continue;
      }
      Hold hold = granted(worker, acquired, sent);
      // Every third grant pauses, never the one after it, which mostly is the grant that takes the
      // lock over: it has written (and raised the fence) when the paused one resumes, and a fence
      // refuses only tokens below one it has seen.
      boolean pauseFirst = scenario == Scenario.CLIENT_PAUSE && hold.index % 3 == 0;
      for (int round = 0; round < EFFECTS_PER_LEASE && System.nanoTime() < endAt; round++) {
        Duration left = acquired.ttl();
        if (traits.clientValidity()) {
          left = client.belief(resource).orElse(Duration.ZERO);
          if (left.compareTo(MIN_BUDGET) < 0) {
            break;
          }
        }
        // A pause that would outlast the run could not meet the lock's next holder: skipped.
        Duration pause = left.plus(Duration.ofMillis(300));
        if (round == 0 && pauseFirst && System.nanoTime() + pause.toNanos() + 200_000_000L < endAt) {
          proxy.blackhole(true);
          sleep(pause);
          proxy.blackhole(false);
          faults.incrementAndGet();
        }
        effect(hold);
        sleep(WORK);
        if (traits.renews() && !renew(client, hold)) {
          break;
        }
      }
      releasing(hold, System.nanoTime());
      releaseQuietly(client);
      backOff();
    }
  }

  /** 5 to 25 ms before the next try: after a release too, so that the others get their turn. */
  private static void backOff() {
    sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 25)));
  }

  private synchronized Hold granted(int worker, Grant.Acquired acquired, long sent) {
    Hold hold = new Hold(holds.size(), worker, acquired.token(), sent, System.nanoTime(), acquired.ttl());
    holds.add(hold);
    return hold;
  }

  private boolean renew(LockClient client, Hold hold) {
    long sent = System.nanoTime();
    try {
      if (client.renew(resource, TTL)) {
        renewed(hold, sent, System.nanoTime());
        return true;
      }
    } catch (Exception unknown) {
      // Not known to be renewed: the interval stays as it was.
    }
    return false;
  }

  /** A renewal sent at {@code sent} succeeded: the interval grows, or, if it had lapsed, the lock was taken again. */
  private synchronized void renewed(Hold hold, long sent, long replied) {
    Interval last = hold.last();
    if (sent < last.until) {
      last.until = Math.max(last.until, sent + TTL.toNanos());
    } else {
      hold.held.add(new Interval(sent, replied, sent + TTL.toNanos()));
    }
  }

  private synchronized void releasing(Hold hold, long sent) {
    Interval last = hold.last();
    last.until = Math.min(last.until, sent);
  }

  private void releaseQuietly(LockClient client) {
    try {
      client.release(resource);
    } catch (Exception ignored) {
      // An unknown release: the next acquire finds out.
    }
  }

  /**
   * Both stores take the effect at one instant, in one order with every other effect (this
   * monitor): the fenced one only with a token at least as high as any it took.
   */
  private synchronized void effect(Hold hold) {
    long now = System.nanoTime();
    effects++;
    List<Hold> later = holds.stream().filter(h -> h.sent > hold.granted && h.granted < now).toList();
    boolean stale = !later.isEmpty();
    boolean laterWrote = later.stream().anyMatch(h -> h.wrote);
    if (stale) {
      staleUnfenced++;
      staleBeforeNext += laterWrote ? 0 : 1;
    }
    hold.wrote = true;
    if (hold.token.isPresent()) {
      long token = hold.token.getAsLong();
      boolean accepted = token >= fencedMax;
      if (accepted) {
        fencedMax = token;
        fencedStale += laterWrote ? 1 : 0;
      } else if (!stale) {
        holderRefused++;
      }
    }
  }

  /** Takes of the lock made while another worker surely held it (see the class comment). */
  private int secondHolders() {
    int n = 0;
    for (Hold h : holds) {
      for (Interval take : h.held) {
        boolean overlaps = holds.stream().filter(g -> g.worker != h.worker).flatMap(g -> g.held.stream())
            .anyMatch(other -> other.from < take.sent && take.from < other.until);
        n += overlaps ? 1 : 0;
      }
    }
    return n;
  }

  private static void sleepUntil(long nanos) {
    sleep(Duration.ofNanos(Math.max(0, nanos - System.nanoTime())));
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
