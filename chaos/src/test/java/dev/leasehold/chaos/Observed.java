package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Event;
import dev.leasehold.chaos.History.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One history read once for every property check: its events in time order, the believed-ACTIVE
 * intervals and grant order ({@link Beliefs}), and the server samples precise enough to judge by.
 *
 * <p>This record is immutable in use: the checks only read it.
 *
 * @param samples the samples that took at most {@link #MAX_SAMPLE_RTT_NS}
 */
record Observed(List<Event> events, Map<String, List<Beliefs.Interval>> intervals, Map<String, Long> grantedAt,
    List<Sample> samples) {
  /** PTTL is whole ms and both reads are bracketed by the sample's round trip. */
  static final long PTTL_TOLERANCE_NS = 2_000_000;
  /** A sample that took longer than this says too little about one instant. */
  static final long MAX_SAMPLE_RTT_NS = 15_000_000;

  static Observed of(History history) {
    List<Event> events = history.events();
    List<Sample> samples = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Sample s && s.at() - s.sentAt() <= MAX_SAMPLE_RTT_NS) {
        samples.add(s);
      }
    }
    return new Observed(events, Beliefs.intervals(events), Beliefs.grantedAt(events), samples);
  }

  /** The events of one type, in time order. */
  <T extends Event> List<T> of(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (Event e : events) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }

  /** Calls {@code check} with each usable sample and each interval believed ACTIVE throughout it. */
  void eachSampleWhileActive(BiConsumer<Sample, Beliefs.Interval> check) {
    for (Sample s : samples) {
      for (List<Beliefs.Interval> list : intervals.values()) {
        for (Beliefs.Interval in : list) {
          if (in.throughout(s.sentAt(), s.at())) {
            check.accept(s, in);
          }
        }
      }
    }
  }

  /** The server's expiry a sample showed: its PTTL counted from {@code from} (the read's start or end). */
  static long expiry(long from, Sample s) {
    return from + s.pttl() * 1_000_000L;
  }
}
