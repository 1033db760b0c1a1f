package dev.leasehold.bench.scale;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A line chart written directly as an SVG string: the bench reports draw their curves with it
 * rather than take on a charting library for a few small plots. 640 x 400 px, one coloured line per
 * series with a dot per point (its tooltip giving x and y), a legend right of the plot, x linear or
 * log10, y linear from 0. The same input gives the same string, so reports can be compared as text.
 *
 * <p>This class is stateless and threadsafe.
 */
final class LineChart {
  /** One line of a chart: its name (legend) and its points, in x order. */
  record Series(String name, List<Point> points) {
    Series {
      Objects.requireNonNull(name, "name");
      points = List.copyOf(points);
    }
  }

  /** One point of a series. */
  record Point(double x, double y) {}

  private static final int WIDTH = 640;
  private static final int HEIGHT = 400;
  // The margins leave room for the title above, tick and axis labels left and below, and the legend
  // right: inside the plot it would cover the curves' right ends, where the largest x values are.
  private static final double LEFT = 64;
  private static final double RIGHT = 490;
  private static final double TOP = 40;
  private static final double BOTTOM = 350;
  private static final int Y_TICKS = 5;
  // Leasehold's series come first in the reports, so it is always blue and the first rival orange.
  private static final String[] PALETTE = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
  private static final MathContext THREE_DIGITS = new MathContext(3, RoundingMode.HALF_EVEN);

  private LineChart() {}

  /**
   * The chart of {@code series}, drawn in their order.
   *
   * @throws IllegalArgumentException if there is no series, a series has no points, or a point has a
   *     non-finite x, a non-finite or negative y, or (with {@code logX}) a non-positive x
   */
  static String svg(String title, String xLabel, String yLabel, boolean logX, List<Series> series) {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(xLabel, "xLabel");
    Objects.requireNonNull(yLabel, "yLabel");
    if (series.isEmpty()) {
      throw new IllegalArgumentException("no series to draw");
    }
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double maxY = 0;
    for (Series s : series) {
      if (s.points().isEmpty()) {
        throw new IllegalArgumentException("series \"" + s.name() + "\" has no points");
      }
      for (Point p : s.points()) {
        if (!Double.isFinite(p.x()) || !Double.isFinite(p.y()) || p.y() < 0 || (logX && p.x() <= 0)) {
          throw new IllegalArgumentException("series \"" + s.name() + "\" has point (" + p.x() + ", " + p.y()
              + "): x must be finite" + (logX ? " and positive on a log axis" : "") + ", y finite and >= 0");
        }
        minX = Math.min(minX, p.x());
        maxX = Math.max(maxX, p.x());
        maxY = Math.max(maxY, p.y());
      }
    }
    XAxis x = logX ? XAxis.log(minX, maxX) : XAxis.linear(minX, maxX);
    double yMax = maxY == 0 ? 1 : niceCeil(maxY);

    StringBuilder svg = new StringBuilder(4096);
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
        .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
    svg.append("<rect width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT).append("\" fill=\"white\"/>\n");
    text(svg, null, WIDTH / 2.0, 24, "middle", "font-size=\"16\" font-weight=\"bold\"", title);

    for (int i = 0; i <= Y_TICKS; i++) {
      double value = yMax * i / Y_TICKS;
      double py = y(value, yMax);
      line(svg, LEFT, py, RIGHT, py, "#dddddd");
      text(svg, "y-tick", LEFT - 6, py + 4, "end", null, compact(value));
    }
    for (double value : x.ticks) {
      double px = x.map(value);
      line(svg, px, TOP, px, BOTTOM, "#eeeeee");
      line(svg, px, BOTTOM, px, BOTTOM + 5, "#333333");
      text(svg, "x-tick", px, BOTTOM + 18, "middle", null, compact(value));
    }
    line(svg, LEFT, BOTTOM, RIGHT, BOTTOM, "#333333");
    line(svg, LEFT, TOP, LEFT, BOTTOM, "#333333");
    text(svg, null, (LEFT + RIGHT) / 2, BOTTOM + 40, "middle", null, xLabel);
    double midY = (TOP + BOTTOM) / 2;
    text(svg, null, 16, midY, "middle", "transform=\"rotate(-90 16 " + coordinate(midY) + ")\"", yLabel);

    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      String colour = PALETTE[i % PALETTE.length];
      svg.append("<g class=\"series\">\n<polyline fill=\"none\" stroke=\"").append(colour)
          .append("\" stroke-width=\"2\"").append(dash(i)).append(" points=\"");
      List<String> circles = new ArrayList<>(s.points().size());
      for (int j = 0; j < s.points().size(); j++) {
        Point p = s.points().get(j);
        String cx = coordinate(x.map(p.x()));
        String cy = coordinate(y(p.y(), yMax));
        svg.append(j == 0 ? "" : " ").append(cx).append(',').append(cy);
        circles.add("<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"3\" fill=\"" + colour + "\"><title>"
            + escape(s.name() + ": x=" + plain(p.x()) + ", y=" + plain(p.y())) + "</title></circle>\n");
      }
      svg.append("\"/>\n");
      circles.forEach(svg::append);
      svg.append("</g>\n");
    }

    svg.append("<g class=\"legend\">\n");
    for (int i = 0; i < series.size(); i++) {
      String colour = PALETTE[i % PALETTE.length];
      double py = TOP + 10 + 18 * i;
      svg.append("<line x1=\"").append(coordinate(RIGHT + 12)).append("\" y1=\"").append(coordinate(py))
          .append("\" x2=\"").append(coordinate(RIGHT + 32)).append("\" y2=\"").append(coordinate(py))
          .append("\" stroke=\"").append(colour).append("\" stroke-width=\"2\"").append(dash(i)).append("/>\n");
      svg.append("<circle cx=\"").append(coordinate(RIGHT + 22)).append("\" cy=\"").append(coordinate(py))
          .append("\" r=\"3\" fill=\"").append(colour).append("\"/>\n");
      text(svg, null, RIGHT + 38, py + 4, "start", null, series.get(i).name());
    }
    svg.append("</g>\n</svg>\n");
    return svg.toString();
  }

  /** The x axis: its range (widened to ticks, so the curves start and end on a gridline) and ticks. */
  private static final class XAxis {
    final boolean log;
    final double lo;
    final double hi;
    final List<Double> ticks = new ArrayList<>();

    private XAxis(boolean log, double lo, double hi) {
      this.log = log;
      this.lo = log ? Math.log10(lo) : lo;
      this.hi = log ? Math.log10(hi) : hi;
    }

    static XAxis linear(double min, double max) {
      if (min == max) {
        // One x value has no extent to scale; centre it.
        min -= 1;
        max += 1;
      }
      double step = niceCeil((max - min) / 5);
      // The epsilon keeps a value that is a multiple of step but computed a little off from gaining a
      // whole empty step.
      long first = (long) Math.floor(min / step + 1e-9);
      long last = (long) Math.ceil(max / step - 1e-9);
      XAxis axis = new XAxis(false, first * step, last * step);
      for (long k = first; k <= last; k++) {
        axis.ticks.add(k * step);
      }
      return axis;
    }

    static XAxis log(double min, double max) {
      int first = (int) Math.floor(Math.log10(min));
      int last = (int) Math.ceil(Math.log10(max));
      if (first == last) {
        last++;
      }
      XAxis axis = new XAxis(true, powerOfTen(first), powerOfTen(last));
      for (int k = first; k <= last; k++) {
        axis.ticks.add(powerOfTen(k));
      }
      return axis;
    }

    double map(double value) {
      double t = log ? Math.log10(value) : value;
      return LEFT + (t - lo) / (hi - lo) * (RIGHT - LEFT);
    }
  }

  private static double y(double value, double yMax) {
    return BOTTOM - value / yMax * (BOTTOM - TOP);
  }

  // Parsed rather than Math.pow, which need not be exact, so that the ticks are the decimal values.
  private static double powerOfTen(int k) {
    return Double.parseDouble("1e" + k);
  }

  /** The smallest of 1, 2, 2.5 and 5 x 10^k at or above {@code value}, for round tick steps. */
  static double niceCeil(double value) {
    int k = (int) Math.floor(Math.log10(value));
    double base = powerOfTen(k);
    for (double m : new double[] {1, 2, 2.5, 5}) {
      // The tolerance keeps 0.3 from becoming 0.5 because 3 x 0.1 is 0.30000000000000004.
      if (m * base >= value * (1 - 1e-12)) {
        return m * base;
      }
    }
    return powerOfTen(k + 1);
  }

  private static String dash(int index) {
    // Past the palette the colours repeat, so the dashes keep later series apart.
    int round = index / PALETTE.length;
    return round == 0 ? "" : " stroke-dasharray=\"" + (2 + 4 * round) + " 3\"";
  }

  private static void line(StringBuilder svg, double x1, double y1, double x2, double y2, String stroke) {
    svg.append("<line x1=\"").append(coordinate(x1)).append("\" y1=\"").append(coordinate(y1)).append("\" x2=\"")
        .append(coordinate(x2)).append("\" y2=\"").append(coordinate(y2)).append("\" stroke=\"").append(stroke)
        .append("\"/>\n");
  }

  private static void text(StringBuilder svg, String cssClass, double x, double y, String anchor, String more,
      String content) {
    svg.append("<text");
    if (cssClass != null) {
      svg.append(" class=\"").append(cssClass).append('"');
    }
    svg.append(" x=\"").append(coordinate(x)).append("\" y=\"").append(coordinate(y)).append("\" text-anchor=\"")
        .append(anchor).append('"');
    if (more != null) {
      svg.append(' ').append(more);
    }
    svg.append('>').append(escape(content)).append("</text>\n");
  }

  /** A pixel position: a tenth of a pixel is finer than any screen shows, and keeps the file small. */
  static String coordinate(double value) {
    String s = String.format(Locale.ROOT, "%.1f", value);
    if (s.endsWith(".0")) {
      s = s.substring(0, s.length() - 2);
    }
    return s.equals("-0") ? "0" : s;
  }

  /** A tick label: 3 significant digits at most, thousands as k, M and G, so that labels stay narrow. */
  static String compact(double value) {
    BigDecimal rounded = new BigDecimal(value).round(THREE_DIGITS);
    BigDecimal abs = rounded.abs();
    String suffix = "";
    if (abs.compareTo(BigDecimal.valueOf(1_000_000_000)) >= 0) {
      rounded = rounded.movePointLeft(9);
      suffix = "G";
    } else if (abs.compareTo(BigDecimal.valueOf(1_000_000)) >= 0) {
      rounded = rounded.movePointLeft(6);
      suffix = "M";
    } else if (abs.compareTo(BigDecimal.valueOf(1_000)) >= 0) {
      rounded = rounded.movePointLeft(3);
      suffix = "k";
    }
    return rounded.stripTrailingZeros().toPlainString() + suffix;
  }

  /**
   * A value in a tooltip, where the reader hovers for the figure itself: every integer digit and at
   * most 1 decimal, except below 1, where 3 significant digits keep 0.0123 from showing as 0.
   */
  static String plain(double value) {
    BigDecimal exact = new BigDecimal(value);
    BigDecimal rounded = exact.abs().compareTo(BigDecimal.ONE) >= 0
        ? exact.setScale(1, RoundingMode.HALF_EVEN)
        : exact.round(THREE_DIGITS);
    return rounded.stripTrailingZeros().toPlainString();
  }

  /** Text for content or an attribute; characters XML 1.0 forbids become U+FFFD, not a broken file. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> out.append((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF
            ? '\uFFFD' : c);
      }
    }
    return out.toString();
  }
}
