package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.chaos.History.Event;
import dev.leasehold.chaos.History.Invoke;
import dev.leasehold.chaos.History.Observe;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the workers' handles believed, read from a history: when each grant was granted and when
 * it was believed ACTIVE. Nothing here looks at the clock or at the server.
 *
 * <p>A grant's <b>believed-ACTIVE interval</b> runs from a completion or observation that saw the
 * handle {@code ACTIVE} until the earliest of its local deadline (as last reported), the first
 * completion or observation that saw it not {@code ACTIVE}, and the worker's release invocation (a
 * worker does not act on a lease it is releasing).
 *
 * <p>This class is stateless and threadsafe.
 */
final class Beliefs {
  /** A believed-ACTIVE interval. */
  record Interval(String grant, String actor, long start, long end, long token) {
    /** Whether the grant was believed ACTIVE at {@code t}. */
    boolean covers(long t) {
      return start <= t && t < end;
    }

    /** Whether the grant was believed ACTIVE from {@code from} to {@code to}. */
    boolean throughout(long from, long to) {
      return start <= from && end >= to;
    }
  }

  private Beliefs() {}

  /** The completion time of each grant's first ACTIVE acquire: the order in which leases were granted. */
  static Map<String, Long> grantedAt(List<Event> events) {
    Map<String, Long> out = new HashMap<>();
    for (Event e : events) {
      if (e instanceof Complete c && c.op().equals("acquire") && "ACTIVE".equals(c.state())) {
        out.putIfAbsent(c.grant(), c.at());
      }
    }
    return out;
  }

  /** The believed-ACTIVE intervals of every grant. */
  static Map<String, List<Interval>> intervals(List<Event> events) {
    Map<String, List<Event>> byGrant = new LinkedHashMap<>();
    Map<String, String> actors = new HashMap<>();
    Map<String, Long> tokens = new HashMap<>();
    for (Event e : events) {
      String grant = null;
      if (e instanceof Complete c) {
        grant = c.grant();
        actors.putIfAbsent(grant, c.actor());
        if (c.token() > 0) {
          tokens.putIfAbsent(grant, c.token());
        }
      } else if (e instanceof Observe o) {
        grant = o.grant();
      } else if (e instanceof Invoke i && i.op().equals("release")) {
        grant = i.grant();
      }
      if (grant != null) {
        byGrant.computeIfAbsent(grant, k -> new ArrayList<>()).add(e);
      }
    }
    Map<String, List<Interval>> out = new LinkedHashMap<>();
    byGrant.forEach((grant, reports) -> {
      List<Interval> list = intervals(grant, actors.get(grant), tokens.getOrDefault(grant, 0L), reports);
      if (!list.isEmpty()) {
        out.put(grant, list);
      }
    });
    return out;
  }

  /** One grant's intervals from its reports (completions, observations, release invocations) in time order. */
  private static List<Interval> intervals(String grant, String actor, long token, List<Event> reports) {
    List<Interval> list = new ArrayList<>();
    long start = -1;
    long end = -1;
    for (Event e : reports) {
      boolean release = e instanceof Invoke;
      String state = e instanceof Complete c ? c.state() : e instanceof Observe o ? o.state() : null;
      long deadline = e instanceof Complete c ? c.deadline() : e instanceof Observe o ? o.deadline() : -1;
      if (!release && "ACTIVE".equals(state) && deadline > e.at()) {
        if (start < 0 || e.at() > end) {
          if (start >= 0) {
            list.add(new Interval(grant, actor, start, end, token));
          }
          start = e.at();
        }
        end = deadline;
      } else if (start >= 0 && (release || state != null)) {
        list.add(new Interval(grant, actor, start, Math.min(end, e.at()), token));
        start = -1;
      }
    }
    if (start >= 0) {
      list.add(new Interval(grant, actor, start, end, token));
    }
    return list;
  }

  /** The local deadline the grant's handle had at {@code t}: from its last ACTIVE report before t. */
  static long deadlineAt(List<Event> events, String grant, long t) {
    long deadline = -1;
    for (Event e : events) {
      if (e.at() > t) {
        break;
      }
      if (e instanceof Complete c && c.grant().equals(grant) && "ACTIVE".equals(c.state())) {
        deadline = c.deadline();
      } else if (e instanceof Observe o && o.grant().equals(grant) && "ACTIVE".equals(o.state())) {
        deadline = o.deadline();
      }
    }
    return deadline;
  }
}
