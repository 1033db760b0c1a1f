package dev.leasehold.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything a chaos run did and saw, on one monotonic clock ({@link System#nanoTime}, reported
 * relative to the start of the run): every invocation and completion, with the handle's state,
 * budget, token and guarantee; every server sample (holder, PTTL, counter); every injected fault;
 * every effect and what the store said. The {@link Checker} reads only this.
 *
 * <p>This class is threadsafe: workers, the sampler and the fault thread record concurrently.
 */
public final class History {
  /** One entry; {@code at} is ns since the start of the run. */
  public sealed interface Event {
    long at();
  }

  /**
   * An operation was sent. {@code grant} is the attempt's operation id (unique per attempt), the
   * name the server's value carries too.
   */
  public record Invoke(long seq, long at, String actor, String grant, String op) implements Event {}

  /**
   * An operation returned. {@code deadline} is the handle's local deadline (ns since start) read
   * right after, or -1 without a handle; {@code state} is {@code handle.state()} right after.
   */
  public record Complete(long seq, long at, String actor, String grant, String op, String outcome,
      String state, long deadline, long token, String guarantee, String detail) implements Event {
    /** The outcome's kind: {@code NotActive} for {@code NotActive(LOST)}. */
    public String variant() {
      int open = outcome.indexOf('(');
      return open < 0 ? outcome : outcome.substring(0, open);
    }

    /** What the outcome names in parentheses: {@code LOST} for {@code NotActive(LOST)}, else "". */
    public String named() {
      int open = outcome.indexOf('(');
      return open < 0 ? "" : outcome.substring(open + 1, outcome.lastIndexOf(')'));
    }
  }

  /**
   * What a worker saw when it checked its handle before an effect (or at any other time): the
   * belief that the effect acts on.
   */
  public record Observe(long at, String actor, String grant, String state, long deadline) implements Event {}

  /**
   * One read of the server, taken between {@code sentAt} and {@code at}: holder grant (or null when
   * absent), PTTL in ms, the fencing counter (0 when absent), and which server answered.
   */
  public record Sample(long sentAt, long at, String holder, long pttl, long counter, String server) implements Event {}

  /** A fault, from {@code at} to {@code endAt} (equal for an instantaneous one). */
  public record Fault(long at, long endAt, String name, String detail) implements Event {}

  /**
   * An effect: {@code store} is "fenced" or "control"; {@code seq} is the store's own order of
   * accepted writes (0 when rejected); {@code prevFence}/{@code prevHolder} are the row before.
   */
  public record Effect(long startAt, long at, String actor, String grant, String store, long token,
      boolean accepted, long storeSeq, long prevFence, String prevHolder, String claimed) implements Event {}

  /** A note for the reader (scenario steps). */
  public record Note(long at, String text) implements Event {}

  private final long origin = System.nanoTime();
  private final AtomicLong seq = new AtomicLong();
  private final List<Event> events = new ArrayList<>();

  /** ns since the start of this run. */
  public long now() {
    return System.nanoTime() - origin;
  }

  /** Converts an absolute {@link System#nanoTime} reading to this history's time. */
  public long fromNanoTime(long nanoTime) {
    return nanoTime - origin;
  }

  public long nextSeq() {
    return seq.incrementAndGet();
  }

  public void add(Event e) {
    synchronized (events) {
      events.add(e);
    }
  }

  public long invoke(String actor, String grant, String op) {
    long s = nextSeq();
    add(new Invoke(s, now(), actor, grant, op));
    return s;
  }

  public void note(String text) {
    add(new Note(now(), text));
  }

  /** Records a fault that lasts from {@code startAt} to now. */
  public void fault(long startAt, String name, String detail) {
    add(new Fault(startAt, now(), name, detail));
  }

  /** A copy, in time order. */
  public List<Event> events() {
    List<Event> copy;
    synchronized (events) {
      copy = new ArrayList<>(events);
    }
    copy.sort((a, b) -> Long.compare(a.at(), b.at()));
    return copy;
  }

  public <T extends Event> List<T> of(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (Event e : events()) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }

  /** Writes one JSON object per line, for people and scripts. */
  public void writeJsonLines(Path file) {
    try {
      Files.createDirectories(file.getParent());
      try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        for (Event e : events()) {
          w.write(json(e));
          w.write('\n');
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String json(Event e) {
    // Records print as Name[a=1, b=x]; turn that into a flat JSON object.
    String text = e.toString();
    int open = text.indexOf('[');
    StringBuilder sb = new StringBuilder("{\"type\":\"").append(text, 0, open).append('"');
    for (java.lang.reflect.RecordComponent c : e.getClass().getRecordComponents()) {
      Object v;
      try {
        v = c.getAccessor().invoke(e);
      } catch (ReflectiveOperationException ex) {
        throw new IllegalStateException(ex);
      }
      sb.append(",\"").append(c.getName()).append("\":");
      if (v == null) {
        sb.append("null");
      } else if (v instanceof Number || v instanceof Boolean) {
        sb.append(v);
      } else {
        sb.append('"').append(escape(v.toString())).append('"');
      }
    }
    return sb.append('}').toString();
  }

  static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format("\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.toString();
  }
}
