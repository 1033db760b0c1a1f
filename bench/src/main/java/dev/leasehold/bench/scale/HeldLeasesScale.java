package dev.leasehold.bench.scale;

import dev.leasehold.bench.CpuMeter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Many leases held at once by one client, kept alive by the library's watchdog: the client takes
 * {@code leases} resources with one TTL, lets one renewal period ({@code ttl / 3}) pass so that
 * every lease has been renewed once (and the JIT has compiled the renewal path, which would
 * otherwise cost either library more CPU in the window than renewing does), then watches a window
 * of two renewal periods ({@code 2 * ttl / 3}, so every lease is renewed twice in it), then
 * releases them all. A lease the watchdog let expire makes its release fail, and the run with it.
 *
 * <p>Heap per lease is the used heap after a full collection with every lease kept, less the same
 * with the client open and nothing kept, divided by {@code leases}.
 *
 * <p>This class is threadsafe; {@link #run} is called from one thread.
 */
final class HeldLeasesScale {
  /**
   * One library at one number of held leases.
   *
   * @param renewalsPerSecond renewals the watchdog reported (NaN when the library does not say)
   * @param renewCommandsPerSecond commands clients sent per second (both libraries renew by script)
   * @param clientCpuPercent the client JVM's CPU, in percent of one core
   * @param jitCpuPercent the part of it the JIT compiler threads took (NaN where not measurable)
   * @param lateness how late renewals were sent after they were due (count 0 when not observable)
   */
  record Result(String library, int leases, double renewalsPerSecond, double renewCommandsPerSecond,
      double clientCpuPercent, double jitCpuPercent, double serverCpuPercent, Percentiles lateness,
      double heapBytesPerLease) {

    /** The client's CPU less its JIT compiler's: what keeping the leases costs once the JIT has settled. */
    double steadyCpuPercent() {
      return clientCpuPercent - jitCpuPercent;
    }
  }

  private HeldLeasesScale() {}

  static Result run(ScaleLibrary library, String server, ServerMeter meter, int leases, Duration ttl) throws InterruptedException {
    ScaleLibrary.Client client = library.open(List.of(server), false, leases);
    try {
      long heap0 = usedHeapAfterGc();
      List<ScaleLibrary.Held> held = new ArrayList<>(leases);
      String run = UUID.randomUUID().toString();
      for (int i = 0; i < leases; i++) {
        held.add(client.keep("scale:held:" + run + ":" + i, ttl));
      }
      double heapPerLease = (double) (usedHeapAfterGc() - heap0) / leases;
      Thread.sleep(ttl.dividedBy(3).toMillis());
      client.drainRenewalLateness();
      long renewals0 = client.renewals();
      ServerMeter.Reading server0 = meter.read();
      long cpu0 = CpuMeter.processCpuNanos();
      long jit0 = CpuMeter.compilerCpuNanos();
      long start = System.nanoTime();
      Thread.sleep(ttl.dividedBy(3).multipliedBy(2).toMillis());
      double seconds = (System.nanoTime() - start) / 1e9;
      long cpu = CpuMeter.processCpuNanos() - cpu0;
      long jit1 = CpuMeter.compilerCpuNanos();
      double jitPercent = jit0 < 0 || jit1 < 0 ? Double.NaN : (jit1 - jit0) / 1e7 / seconds;
      ServerMeter.Reading serverDelta = meter.read().minus(server0);
      long renewals = client.renewals();
      Percentiles lateness = Percentiles.of(client.drainRenewalLateness());
      held.forEach(ScaleLibrary.Held::release);
      return new Result(library.name(), leases, renewals < 0 ? Double.NaN : (renewals - renewals0) / seconds,
          serverDelta.commands() / seconds, cpu / 1e7 / seconds, jitPercent, serverDelta.cpuSeconds() * 100 / seconds, lateness,
          heapPerLease);
    } finally {
      client.close();
    }
  }

  private static long usedHeapAfterGc() {
    // Two collections: the first may only promote what the second frees.
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
