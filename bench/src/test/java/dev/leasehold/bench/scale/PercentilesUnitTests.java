package dev.leasehold.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@link Percentiles}: nearest rank, in microseconds, whatever order the samples came in. */
class PercentilesUnitTests {
  @Test
  void nearestRank_ofOneToAHundredMicroseconds() {
    long[] nanos = LongStream.rangeClosed(1, 100).map(i -> (101 - i) * 1_000).toArray();
    Percentiles p = Percentiles.of(nanos);
    assertEquals(100, p.count());
    assertEquals(50.0, p.p50Micros());
    assertEquals(99.0, p.p99Micros());
  }

  @Test
  void aSingleSample_isEveryPercentile_andNoSampleIsNotANumber() {
    Percentiles one = Percentiles.of(new long[] {2_500});
    assertEquals(2.5, one.p50Micros());
    assertEquals(2.5, one.p99Micros());
    Percentiles none = Percentiles.of(new long[0]);
    assertTrue(Double.isNaN(none.p50Micros()) && Double.isNaN(none.p99Micros()));
  }

  @Test
  void theSamplesAreNotReordered() {
    long[] nanos = {3_000, 1_000, 2_000};
    Percentiles.of(nanos);
    assertEquals(3_000, nanos[0]);
  }
}
