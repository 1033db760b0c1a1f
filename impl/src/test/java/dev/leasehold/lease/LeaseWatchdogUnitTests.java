package dev.leasehold.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.testing.FakeRedis;
import java.time.Duration;
import java.util.List;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LeaseWatchdog} (defect 7) on the in-memory gateway with the real monotonic clock. */
class LeaseWatchdogUnitTests {
  static final String PURPOSE = "watchdog-test";
  static final String DIGEST = ResourceDigests.sha256("resource-w");
  // Long enough that a loaded 2-core CI machine does not miss a renewal by scheduling delay.
  static final Duration TTL = Duration.ofMillis(1000);

  private FakeRedis redis;
  private RedisLeaseAdapter adapter;
  private LeaseKeys keys;
  private LeaseWatchdog watchdog;
  private final List<LeaseWatchdog.LeaseLoss> losses = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() {
    FakeRedis.Clock clock = FakeRedis.Clock.real();
    redis = new FakeRedis(clock);
    adapter = RedisLeaseAdapter.builder(redis).monotonicNanos(clock).sleeper(clock).build();
    keys = adapter.keys(PURPOSE, DIGEST);
    watchdog = LeaseWatchdog.create();
  }

  @AfterEach
  void tearDown() {
    watchdog.close();
  }

  private LeaseHandle acquire(String operationId) {
    AcquireOutcome outcome = adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, TTL, adapter.newAttempt(operationId)));
    return assertInstanceOf(AcquireOutcome.Acquired.class, outcome).handle();
  }

  static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not met within " + timeout);
      }
      Thread.sleep(5);
    }
  }

  @Test
  void renewsAcrossManyTtls() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    long end = System.nanoTime() + TTL.multipliedBy(8).toNanos();
    while (System.nanoTime() - end < 0) {
      assertEquals(LeaseState.ACTIVE, handle.state(), "still active after " + registration.renewals() + " renewals");
      Thread.sleep(20);
    }
    assertTrue(registration.renewals() >= 16, "renewed every ttl/3: " + registration.renewals());
    assertTrue(losses.isEmpty());
    assertNotNull(redis.value(keys), "the server still holds it");
    registration.cancel();
  }

  @Test
  void keyDeletedFromOutside_reportsLostExactlyOnce() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    redis.delete(keys);
    await(() -> !losses.isEmpty(), Duration.ofSeconds(10));
    Thread.sleep(TTL.multipliedBy(2).toMillis());
    assertEquals(1, losses.size(), "exactly once: " + losses);
    assertEquals(LeaseState.LOST, losses.get(0).state());
    assertTrue(losses.get(0).reason().contains("absent"), losses.get(0).reason());
    assertEquals(LeaseState.LOST, handle.state());
    assertFalse(registration.isActive());
    assertEquals(0, watchdog.registrations());
  }

  @Test
  void unansweredRenew_reportsUnknownOnce() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    redis.loseNextReply("renew", false);
    watchdog.watch(handle, TTL, losses::add);
    await(() -> !losses.isEmpty(), Duration.ofSeconds(10));
    Thread.sleep(TTL.toMillis());
    assertEquals(1, losses.size());
    assertEquals(LeaseState.UNKNOWN, losses.get(0).state());
  }

  @Test
  void definiteRenewFailures_areRetried_notReported() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    redis.failNext("renew", GatewayException.Failure.NOT_SENT);
    redis.failNext("renew", GatewayException.Failure.OVERLOADED);
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    await(() -> registration.renewals() >= 3, Duration.ofSeconds(10));
    assertTrue(losses.isEmpty());
    assertEquals(LeaseState.ACTIVE, handle.state());
  }

  @Test
  void stopsAtTheCallersDeadline_withoutACallback() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, TTL.multipliedBy(2), losses::add);
    await(() -> !registration.isActive(), Duration.ofSeconds(10));
    long renewals = registration.renewals();
    assertTrue(renewals >= 3, "renewed until the deadline: " + renewals);
    await(() -> handle.state() == LeaseState.LOST, Duration.ofSeconds(10));
    assertEquals(renewals, registration.renewals(), "no renewal after the deadline");
    assertTrue(losses.isEmpty(), "a deadline is not a loss");
  }

  @Test
  void stopsQuietlyOnRelease() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    await(() -> !registration.isActive(), Duration.ofSeconds(10));
    assertTrue(losses.isEmpty());
    assertEquals(0, redis.calls("renew") - registration.renewals(), "no renew sent after the release");
  }

  /** A tick during the application's release reads UNKNOWN (the key may be gone); it must end quietly. */
  @Test
  void releaseInFlightDuringATick_endsQuietly() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    CountDownLatch tickedWhileReleasing = new CountDownLatch(1);
    AtomicReference<LeaseState> seenByTick = new AtomicReference<>();
    Thread releaser = Thread.currentThread();
    AtomicBoolean releasing = new AtomicBoolean();
    LeaseHandle observed = afterEachCall(handle, (method, result) -> {
      if (method.equals("state") && releasing.get() && Thread.currentThread() != releaser) {
        seenByTick.compareAndSet(null, (LeaseState) result);
        tickedWhileReleasing.countDown();
      }
    });
    LeaseWatchdog.Registration registration = watchdog.watch(observed, TTL, losses::add);
    redis.onApplied(op -> {
      if (op.equals("release")) {
        releasing.set(true);
        awaitLatch(tickedWhileReleasing);
      }
    });
    assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
    await(() -> !registration.isActive(), Duration.ofSeconds(10));
    watchdog.close(); // waits for the tick that ended it, listener call included
    assertEquals(LeaseState.UNKNOWN, seenByTick.get(), "the tick saw the release in flight");
    assertEquals(List.of(), losses, "a release is not a loss");
  }

  /** The watchdog's view of {@code handle}: every call forwarded, then {@code hook} told its method and result. */
  static LeaseHandle afterEachCall(LeaseHandle handle, BiConsumer<String, Object> hook) {
    return (LeaseHandle) Proxy.newProxyInstance(LeaseHandle.class.getClassLoader(), new Class<?>[] {LeaseHandle.class},
        (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(handle, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          hook.accept(method.getName(), result);
          return result;
        });
  }

  /**
   * A renewal refused (Overloaded) just as the application's release goes out: the tick then reads
   * UNKNOWN, which is that release in flight, not a loss; it retries and the release ends it quietly.
   */
  @Test
  void refusedRenewalDuringARelease_isRetried_notReported() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    CountDownLatch releaseInFlight = new CountDownLatch(1);
    CountDownLatch tickLooked = new CountDownLatch(1);
    AtomicReference<LeaseState> seenAfterRefusal = new AtomicReference<>();
    AtomicBoolean refused = new AtomicBoolean();
    redis.failNext("renew", GatewayException.Failure.OVERLOADED);
    redis.onApplied(op -> {
      if (op.equals("release")) {
        releaseInFlight.countDown();
        awaitLatch(tickLooked);
      }
    });
    LeaseHandle observed = afterEachCall(handle, (method, result) -> {
      // The watchdog sends without waiting; over the in-memory gateway the reply is there at once.
      if (method.equals("renewAsync") && result instanceof CompletionStage<?> reply
          && reply.toCompletableFuture().getNow(null) instanceof RenewOutcome.Overloaded && refused.compareAndSet(false, true)) {
        new Thread(handle::release, "application-release").start();
        awaitLatch(releaseInFlight);
      } else if (method.equals("state") && refused.get() && seenAfterRefusal.compareAndSet(null, (LeaseState) result)) {
        tickLooked.countDown();
      }
    });
    LeaseWatchdog.Registration registration = watchdog.watch(observed, TTL, losses::add);
    await(() -> !registration.isActive(), Duration.ofSeconds(10));
    watchdog.close(); // waits for the tick that ended it, listener call included
    assertEquals(LeaseState.UNKNOWN, seenAfterRefusal.get(), "the tick read the release in flight");
    assertEquals(LeaseState.RELEASED, handle.state());
    assertEquals(List.of(), losses, "a release is not a loss");
  }

  static void awaitLatch(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS), "timed out waiting for the other thread");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A reply read on a gateway's I/O thread is judged there, but the listener, the application's
   * code, still runs on the watchdog's thread: it may block without holding up any reply.
   */
  @Test
  void aLossAnsweredOnAnotherThread_isReportedOnTheWatchdogThread() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    LeaseHandle answeredElsewhere = (LeaseHandle) Proxy.newProxyInstance(LeaseHandle.class.getClassLoader(),
        new Class<?>[] {LeaseHandle.class}, (proxy, method, args) -> {
          if (!method.getName().equals("renewAsync")) {
            try {
              return method.invoke(handle, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          }
          CompletableFuture<RenewOutcome> reply = new CompletableFuture<>();
          new Thread(() -> reply.complete(new RenewOutcome.Lost("absent")), "gateway-io").start();
          return reply;
        });
    List<String> listenerThreads = new CopyOnWriteArrayList<>();
    watchdog.watch(answeredElsewhere, TTL, loss -> {
      listenerThreads.add(Thread.currentThread().getName());
      losses.add(loss);
    });
    await(() -> !losses.isEmpty(), Duration.ofSeconds(10));
    watchdog.close(); // waits for anything still running on its thread
    assertEquals(1, losses.size(), "exactly once: " + losses);
    assertTrue(listenerThreads.get(0).startsWith("leasehold-watchdog-"), "listener ran on " + listenerThreads.get(0));
  }

  /** UNKNOWN left by another thread's unanswered renew is not a pending release: the next renewal settles it. */
  @Test
  void unknownFromAnotherThreadsRenew_isRenewedAgain() throws InterruptedException {
    LeaseHandle handle = acquire("op");
    redis.loseNextReply("renew", true);
    assertInstanceOf(RenewOutcome.Indeterminate.class, handle.renew(TTL));
    assertEquals(LeaseState.UNKNOWN, handle.state());
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    await(() -> registration.renewals() >= 1, Duration.ofSeconds(10));
    assertEquals(LeaseState.ACTIVE, handle.state());
    assertEquals(List.of(), losses);
    registration.cancel();
  }

  @Test
  void aTtlNotAboveTheDriftBudget_isRefusedAtWatch_beforeAnyRenewal() {
    LeaseHandle handle = acquire("op");
    Duration drift = RedisLeaseConfig.DEFAULT_DRIFT_BUDGET;
    // At the budget, and above it but sent as the budget (whole milliseconds).
    for (Duration ttl : List.of(drift, drift.plusNanos(900_000))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> watchdog.watch(handle, ttl, losses::add), "ttl " + ttl);
      assertTrue(e.getMessage().contains("drift budget"), e.getMessage());
    }
    assertEquals(0, watchdog.registrations());
    assertEquals(0, redis.calls("renew"), "the refusal sent nothing");
    assertEquals(LeaseState.ACTIVE, handle.state());
  }

  @Test
  void registrationsAreBounded() {
    try (LeaseWatchdog small = LeaseWatchdog.builder().maxRegistrations(2).build()) {
      LeaseHandle handle = acquire("op");
      LeaseWatchdog.Registration a = small.watch(handle, TTL, losses::add);
      small.watch(handle, TTL, losses::add);
      assertThrows(LeaseWatchdog.RegistrationRefusedException.class, () -> small.watch(handle, TTL, losses::add));
      a.cancel();
      a.cancel();
      small.watch(handle, TTL, losses::add).cancel();
      assertEquals(1, small.registrations());
    }
  }

  @Test
  void closedWatchdogRefuses_andCloseIsIdempotent() {
    LeaseHandle handle = acquire("op");
    LeaseWatchdog.Registration registration = watchdog.watch(handle, TTL, losses::add);
    watchdog.close();
    watchdog.close();
    assertFalse(registration.isActive());
    assertThrows(LeaseWatchdog.RegistrationRefusedException.class, () -> watchdog.watch(handle, TTL, losses::add));
  }

  @Test
  void noThreadLeak_ownThreadsStop_injectedExecutorIsLeftRunning() throws InterruptedException {
    long before = watchdogThreads();
    for (int i = 0; i < 20; i++) {
      LeaseWatchdog w = LeaseWatchdog.create();
      w.watch(acquireFresh(i), TTL, losses::add);
      w.close();
      w.close();
    }
    await(() -> watchdogThreads() <= before, Duration.ofSeconds(5));
    ScheduledExecutorService injected = Executors.newSingleThreadScheduledExecutor();
    try {
      LeaseWatchdog w = LeaseWatchdog.builder().executor(injected).build();
      w.watch(acquireFresh(99), TTL, losses::add);
      w.close();
      assertFalse(injected.isShutdown(), "an injected executor is never shut down");
      assertEquals(before, watchdogThreads());
    } finally {
      injected.shutdownNow();
    }
  }

  private LeaseHandle acquireFresh(int i) {
    AcquireOutcome outcome = adapter.tryAcquire(LeaseRequest.once(PURPOSE, ResourceDigests.sha256("r" + i), TTL,
        adapter.newAttempt("op-" + i)));
    return assertInstanceOf(AcquireOutcome.Acquired.class, outcome).handle();
  }

  static long watchdogThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("leasehold-watchdog-")).count();
  }
}
