package dev.leasehold.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One self-contained HTML page per run: a lane per worker with the intervals it believed it held
 * the lease (labelled with the token) and its effects (accepted, rejected, stale); the server's
 * holder and PTTL from the samples; the fencing counter; the faults as bands over everything.
 * Hover for details.
 *
 * <p>This class is stateless and threadsafe.
 */
final class Timeline {
  private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"};
  private static final int LEFT = 130;
  private static final int WIDTH = 1500;
  private static final int LANE = 46;

  private Timeline() {}

  static void write(Path file, ChaosRun.Setup setup, History history, Checker.Counts counts) {
    List<History.Event> events = history.events();
    long end = 1;
    TreeSet<String> actors = new TreeSet<>();
    long maxPttl = setup.plan().ttl().toMillis();
    for (History.Event e : events) {
      end = Math.max(end, e.at());
      if (e instanceof History.Complete c) {
        actors.add(c.actor());
      }
      if (e instanceof History.Sample s) {
        maxPttl = Math.max(maxPttl, s.pttl());
      }
    }
    Map<String, List<Beliefs.Interval>> intervals = Beliefs.intervals(events);
    List<String> lanes = new ArrayList<>(actors);
    int serverY = 30 + lanes.size() * LANE;
    int pttlY = serverY + LANE;
    int height = pttlY + 90;
    double scale = (WIDTH - LEFT - 20) / (double) end;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg xmlns='http://www.w3.org/2000/svg' width='").append(WIDTH).append("' height='").append(height)
        .append("' font-family='sans-serif' font-size='11'>\n");
    // Time axis.
    for (long s = 0; s <= end / 1_000_000_000L; s++) {
      double x = LEFT + s * 1e9 * scale;
      svg.append(String.format("<line x1='%.1f' y1='18' x2='%.1f' y2='%d' stroke='#ddd'/>", x, x, height - 20));
      svg.append(String.format("<text x='%.1f' y='14' text-anchor='middle'>%d s</text>%n", x, s));
    }
    // Lane labels.
    for (int i = 0; i < lanes.size(); i++) {
      svg.append(String.format("<text x='8' y='%d'>%s believes</text>%n", 30 + i * LANE + 18, lanes.get(i)));
    }
    svg.append(String.format("<text x='8' y='%d'>server holder</text>%n", serverY + 18));
    svg.append(String.format("<text x='8' y='%d'>server PTTL</text>%n", pttlY + 30));
    svg.append(String.format("<text x='8' y='%d'>(0..%d ms)</text>%n", pttlY + 44, maxPttl));
    // Believed-ACTIVE intervals.
    for (List<Beliefs.Interval> list : intervals.values()) {
      for (Beliefs.Interval in : list) {
        int lane = lanes.indexOf(in.actor());
        if (lane < 0) {
          continue;
        }
        double x = LEFT + in.start() * scale;
        double w = Math.max(1, (in.end() - in.start()) * scale);
        int y = 30 + lane * LANE;
        svg.append(String.format("<rect x='%.1f' y='%d' width='%.1f' height='20' fill='%s' opacity='0.85'>"
                + "<title>%s token %d ACTIVE %.3f-%.3f s</title></rect>",
            x, y, w, color(in.actor()), in.grant(), in.token(), in.start() / 1e9, in.end() / 1e9));
        if (w > 40) {
          svg.append(String.format("<text x='%.1f' y='%d' fill='white'>%s</text>", x + 2, y + 14, shortToken(in.token())));
        }
        svg.append('\n');
      }
    }
    // Effects under the lanes: triangles for the fenced store, circles for the control.
    for (History.Event e : events) {
      if (!(e instanceof History.Effect f)) {
        continue;
      }
      int lane = lanes.indexOf(f.actor());
      if (lane < 0) {
        continue;
      }
      double x = LEFT + f.at() * scale;
      int y = 30 + lane * LANE + 28;
      boolean stale = f.accepted() && counts.staleWrites().contains(f.store() + "#" + f.storeSeq());
      String fill = stale ? "#d00" : f.accepted() ? "#2a2" : "#999";
      String what = f.store() + (f.accepted() ? " accepted" : " rejected") + (stale ? " STALE" : "")
          + " token " + f.token() + " (row had " + f.prevFence() + " from " + f.prevHolder() + ") claimed " + f.claimed();
      if (f.store().equals("fenced")) {
        svg.append(String.format("<path d='M%.1f %d l-5 9 h10 z' fill='%s'><title>%s %s at %.3f s</title></path>%n",
            x, y, fill, f.grant(), what, f.at() / 1e9));
      } else {
        svg.append(String.format("<circle cx='%.1f' cy='%d' r='4' fill='none' stroke='%s' stroke-width='2'>"
            + "<title>%s %s at %.3f s</title></circle>%n", x, y + 13, fill, f.grant(), what, f.at() / 1e9));
      }
    }
    // Server holder and PTTL.
    History.Sample prev = null;
    StringBuilder line = new StringBuilder();
    for (History.Event e : events) {
      if (!(e instanceof History.Sample s)) {
        continue;
      }
      if (prev != null && s.at() - prev.at() < 300_000_000L) {
        double x = LEFT + prev.at() * scale;
        double w = Math.max(0.5, (s.at() - prev.at()) * scale);
        String fill = prev.holder() == null ? "#eee" : color(prev.holder().substring(0, prev.holder().indexOf('.') < 0
            ? prev.holder().length() : prev.holder().indexOf('.')));
        svg.append(String.format("<rect x='%.1f' y='%d' width='%.1f' height='20' fill='%s'><title>%s pttl %d counter %d on %s at %.3f s</title></rect>%n",
            x, serverY, w, fill, prev.holder() == null ? "absent" : prev.holder(), prev.pttl(), prev.counter(), prev.server(),
            prev.at() / 1e9));
      }
      double px = LEFT + s.at() * scale;
      double py = pttlY + 60 - Math.max(0, s.pttl()) * 56.0 / Math.max(1, maxPttl);
      line.append(line.length() == 0 ? "M" : " L").append(String.format("%.1f %.1f", px, py));
      prev = s;
    }
    svg.append("<path d='").append(line).append("' fill='none' stroke='#333' stroke-width='1'/>\n");
    // Faults over everything.
    for (History.Event e : events) {
      if (e instanceof History.Fault f) {
        double x = LEFT + f.at() * scale;
        double w = Math.max(2, (f.endAt() - f.at()) * scale);
        svg.append(String.format("<rect x='%.1f' y='18' width='%.1f' height='%d' fill='#e15759' opacity='0.18'>"
                + "<title>%s: %s (%.3f-%.3f s)</title></rect>",
            x, w, height - 38, f.name(), esc(f.detail()), f.at() / 1e9, f.endAt() / 1e9));
        svg.append(String.format("<text x='%.1f' y='%d' fill='#a00' font-size='10'>%s</text>%n", x + 1, height - 8, esc(f.name())));
      }
    }
    svg.append("</svg>\n");

    StringBuilder html = new StringBuilder();
    html.append("<!doctype html><html><head><meta charset='utf-8'><title>").append(esc(setup.scenario()))
        .append(" - leasehold chaos</title><style>body{font-family:sans-serif;margin:16px}td,th{border:1px solid #ccc;"
            + "padding:2px 6px}table{border-collapse:collapse}li{font-family:monospace;font-size:12px}</style></head><body>\n");
    html.append("<h1>").append(esc(setup.scenario())).append("</h1><p>").append(esc(setup.description())).append("</p>\n");
    html.append("<p>Fencing: ").append(setup.fenceMode()).append(setup.replicaAcks() > 0 ? ", WAIT " + setup.replicaAcks()
        + " replica(s) within " + setup.replicaAckTimeout().toMillis() + " ms" : "").append(". Lease TTL ")
        .append(setup.plan().ttl().toMillis()).append(" ms, drift budget ").append(setup.driftBudget().toMillis())
        .append(" ms.</p>\n");
    Map<String, Object> table = new TreeMap<>();
    table.put("a. operations", counts.operations());
    table.put("b. faults injected", counts.faults());
    table.put("c. two handles ACTIVE at once (pairs)", counts.twoActivePairs());
    table.put("d. handles ACTIVE past the server lease", counts.activePastLease());
    table.put("e. stale writes accepted by the control", counts.controlStaleAccepted());
    table.put("f. stale writes accepted by the fenced store, handle claimed FENCED", counts.fencedStaleAcceptedClaimedFenced());
    table.put("g. stale writes accepted by the fenced store, handle claimed EFFICIENCY_ONLY", counts.fencedStaleAcceptedClaimedEfficiency());
    table.put("h. writes rejected by the fenced store", counts.fencedRejected());
    table.put("i. tokens issued to two grants", counts.duplicateTokens());
    table.put("j. certainty contradictions", counts.certaintyContradictions());
    table.put("k. state/outcome disagreements", counts.stateOutcomeDisagreements());
    html.append("<table>");
    table.forEach((k, v) -> html.append("<tr><td>").append(esc(k.substring(3))).append("</td><td>").append(v).append("</td></tr>"));
    html.append("</table>\n<p>Lanes: bars = intervals a worker's handle was ACTIVE (label: last digits of its token);"
        + " triangles = fenced store writes, circles = control writes (green accepted, grey rejected, red stale accepted);"
        + " server holder coloured by worker, grey = absent; red bands = faults.</p>\n");
    html.append(svg);
    html.append("<h2>Findings</h2><ul>");
    for (String f : counts.findings()) {
      html.append("<li>").append(esc(f)).append("</li>");
    }
    html.append("</ul><h2>Notes</h2><ul>");
    for (History.Event e : events) {
      if (e instanceof History.Note n) {
        html.append(String.format("<li>%.3f s %s</li>", n.at() / 1e9, esc(n.text())));
      } else if (e instanceof History.Fault f) {
        html.append(String.format("<li>%.3f-%.3f s fault %s: %s</li>", f.at() / 1e9, f.endAt() / 1e9, esc(f.name()), esc(f.detail())));
      }
    }
    html.append("</ul><p>Full history: <code>").append(esc(setup.scenario())).append("/history.jsonl</code></p></body></html>\n");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, html, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String shortToken(long token) {
    String s = Long.toString(token);
    return s.length() > 5 ? "…" + s.substring(s.length() - 5) : s;
  }

  private static String color(String actor) {
    return COLORS[Math.floorMod(actor.hashCode(), COLORS.length)];
  }

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace("\"", "&quot;");
  }
}
