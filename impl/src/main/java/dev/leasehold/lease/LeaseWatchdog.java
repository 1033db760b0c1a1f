package dev.leasehold.lease;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Keeps leases renewed. Each {@link #watch registration} renews its handle with the TTL it was
 * given, every {@code ttl / }{@link #DEFAULT_RENEW_DIVISOR} (and never later than half of what is
 * left of the handle's validity), retries sooner after a definite failure ({@code Unavailable},
 * {@code Overloaded}), and ends on the first of:
 * <ul>
 *   <li>the handle is released ({@code RELEASED}): ends quietly;</li>
 *   <li>the caller's deadline ({@code stopAfter}) passes, or the registration is cancelled: ends
 *       quietly, and the lease then expires on the server unless someone else renews it;</li>
 *   <li>the handle becomes {@code LOST}, or a renewal cannot settle an {@code UNKNOWN} (the
 *       watchdog's renew goes unanswered, or a release that may still delete the lease is
 *       pending): the {@link LossListener} is called exactly once, with the state and the reason,
 *       and the registration ends. An {@code UNKNOWN} lease might still be held, but nothing may
 *       rely on it, so it is reported, not retried. A handle that merely reads {@code UNKNOWN}
 *       when a renewal is due (another thread's release in flight, or another thread's renew
 *       unanswered) is renewed as usual: a renewal that could not be sent while another request of
 *       the handle was in flight is tried again soon, and answers from what that request left
 *       ({@code RELEASED} ends quietly).</li>
 * </ul>
 *
 * <p>Every watched lease's next renewal waits in one queue ordered by when it is due, with one
 * task scheduled for the earliest. When that task runs it sends every renewal that is due, and
 * with them every one due within a quarter of its interval (at most 1 s): renewing early is always
 * safe, and a burst of renewals is what a gateway can send in one round trip (the Redis adapter
 * sends up to 100 leases per RENEW call); leases renewed together come due together again. A
 * renewal is sent with {@link LeaseHandle#renewAsync}, so no renewal waits for another's reply: a
 * server that stops answering delays only the leases it holds. A reply is judged on the thread
 * that completes it; renewals are sent, and the {@link LossListener} called, on an injected
 * {@link ScheduledExecutorService} (which {@link #close()} never shuts down) or on this watchdog's
 * own single daemon thread, named {@code leasehold-watchdog-N}, which {@link #close()} stops. A
 * handle whose renew blocks (the default {@code renewAsync}) renews on that thread, one after
 * another. At most
 * {@link #DEFAULT_MAX_REGISTRATIONS} registrations are live at once, unless the builder sets more.
 *
 * <p>This class is threadsafe.
 */
public final class LeaseWatchdog implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();

  /** Live registrations allowed at once. Defaults to 1024. */
  public static final int DEFAULT_MAX_REGISTRATIONS = 1024;
  /** Renew every {@code ttl / 3}. */
  public static final int DEFAULT_RENEW_DIVISOR = 3;
  /** The shortest pause between two renewals of one handle: 5 ms. */
  public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofMillis(5);
  /** How long {@link #close()} waits for a renewal being judged (or sent by a blocking handle) on the own thread: 5 s. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** Told once that a watched lease became {@code LOST} or {@code UNKNOWN}. Runs on the watchdog thread. */
  @FunctionalInterface
  public interface LossListener {
    void onLoss(LeaseLoss loss);
  }

  /**
   * Why a watched lease can no longer be relied on.
   *
   * <p>This record is immutable.
   *
   * @param handle the watched handle
   * @param state {@code LOST} or {@code UNKNOWN}
   * @param reason what the watchdog saw; never contains the owner token
   */
  public record LeaseLoss(LeaseHandle handle, LeaseState state, String reason) {}

  /** A live watch; cancelling it stops renewals without a callback. Threadsafe. */
  public interface Registration extends AutoCloseable {
    /** Stops renewing; idempotent. The listener is not called after this returns, unless it was already running. */
    void cancel();

    /** Whether renewals are still scheduled. */
    boolean isActive();

    /** Successful renewals so far. */
    long renewals();

    /** Same as {@link #cancel()}. */
    @Override
    default void close() {
      cancel();
    }
  }

  /**
   * {@link #watch} refused: the watchdog is closed or full.
   *
   * <p>This class is immutable.
   */
  public static final class RegistrationRefusedException extends LeaseException {
    private static final long serialVersionUID = 1L;

    public RegistrationRefusedException(String message) {
      super(message);
    }
  }

  private final ScheduledExecutorService executor;
  private final boolean ownsExecutor;
  private final int maxRegistrations;
  private final LongSupplier monotonicNanos;
  private final RenewalQueue queue;
  private final Set<LeaseWatch> live = ConcurrentHashMap.newKeySet();
  private final AtomicInteger reserved = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Consumer<LeaseWatch> onEnd = this::ended;

  private LeaseWatchdog(Builder builder) {
    this.ownsExecutor = builder.executor == null;
    this.executor = ownsExecutor ? ownExecutor() : builder.executor;
    this.maxRegistrations = builder.maxRegistrations;
    this.monotonicNanos = builder.monotonicNanos;
    this.queue = new RenewalQueue(executor, monotonicNanos);
  }

  private static ScheduledExecutorService ownExecutor() {
    ThreadFactory factory = runnable -> {
      Thread thread = new Thread(runnable, "leasehold-watchdog-" + THREADS.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
    ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, factory);
    own.setRemoveOnCancelPolicy(true);
    own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return own;
  }

  /** A watchdog with its own daemon thread and {@link #DEFAULT_MAX_REGISTRATIONS}. */
  public static LeaseWatchdog create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Renews {@code handle} with {@code ttl} until it is released, lost or unknown. */
  public Registration watch(LeaseHandle handle, Duration ttl, LossListener listener) {
    return watch(handle, ttl, null, listener);
  }

  /**
   * Renews {@code handle} with {@code ttl} until it is released, lost or unknown, or until
   * {@code stopAfter} (measured from now; null for no deadline) has passed.
   *
   * @throws IllegalArgumentException if an argument is null (except {@code stopAfter}) or not positive,
   *     or if the handle would refuse {@code ttl} ({@link LeaseHandle#checkTtl})
   * @throws RegistrationRefusedException if the watchdog is closed or already has its maximum of
   *     live registrations
   */
  public Registration watch(LeaseHandle handle, Duration ttl, Duration stopAfter, LossListener listener) {
    Checks.notNull("handle", handle);
    Checks.notNull("listener", listener);
    Checks.within("ttl", ttl, Duration.ZERO, false, LeaseRequest.MAX_LEASE_TTL);
    // Judged as the renewals will send it (e.g. not above the handle's drift budget): else every
    // renewal would fail inside the watchdog until the lease ran out.
    handle.checkTtl(ttl);
    if (stopAfter != null) {
      Checks.within("stopAfter", stopAfter, Duration.ZERO, false, Duration.ofDays(365));
    }
    if (closed.get()) {
      throw new RegistrationRefusedException("the watchdog is closed");
    }
    if (reserved.incrementAndGet() > maxRegistrations) {
      reserved.decrementAndGet();
      throw new RegistrationRefusedException("the watchdog already watches " + maxRegistrations + " leases");
    }
    long now = monotonicNanos.getAsLong();
    LeaseWatch watch = new LeaseWatch(queue, executor, monotonicNanos, onEnd, handle, ttl,
        stopAfter == null ? null : now + stopAfter.toNanos(), listener);
    live.add(watch);
    watch.start();
    return watch;
  }

  /** Registrations live now. */
  public int registrations() {
    return live.size();
  }

  private void ended(LeaseWatch watch) {
    live.remove(watch);
    reserved.decrementAndGet();
  }

  /**
   * Ends every registration without a callback and, if the thread is this watchdog's own, stops
   * it (waiting up to {@link #DEFAULT_CLOSE_TIMEOUT} for a renewal in flight, so that close never
   * interrupts a request and turns a handle {@code UNKNOWN}). Never shuts down an injected
   * executor. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (LeaseWatch watch : live) {
      watch.cancel();
    }
    if (ownsExecutor) {
      executor.shutdown();
      try {
        if (!executor.awaitTermination(DEFAULT_CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          executor.shutdownNow();
        }
      } catch (InterruptedException e) {
        executor.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Builds a {@link LeaseWatchdog}.
   *
   * <p>This class is not threadsafe.
   */
  public static final class Builder {
    private ScheduledExecutorService executor;
    private int maxRegistrations = DEFAULT_MAX_REGISTRATIONS;
    private LongSupplier monotonicNanos = System::nanoTime;

    private Builder() {}

    /**
     * Runs renewals on {@code executor}, which the watchdog never shuts down. Defaults to an own
     * single daemon thread. @return {@code this}
     *
     * @throws IllegalArgumentException if null
     */
    public Builder executor(ScheduledExecutorService executor) {
      this.executor = Checks.notNull("executor", executor);
      return this;
    }

    /**
     * See {@link #DEFAULT_MAX_REGISTRATIONS}. @return {@code this}
     *
     * @throws IllegalArgumentException if not in 1..1,000,000
     */
    public Builder maxRegistrations(int maxRegistrations) {
      if (maxRegistrations < 1 || maxRegistrations > 1_000_000) {
        throw new IllegalArgumentException("maxRegistrations must be in 1..1000000 but was " + maxRegistrations);
      }
      this.maxRegistrations = maxRegistrations;
      return this;
    }

    /** The clock deadlines are measured on. Defaults to {@code System::nanoTime}. @return {@code this} */
    public Builder monotonicNanos(LongSupplier monotonicNanos) {
      this.monotonicNanos = Checks.notNull("monotonicNanos", monotonicNanos);
      return this;
    }

    public LeaseWatchdog build() {
      return new LeaseWatchdog(this);
    }
  }
}
