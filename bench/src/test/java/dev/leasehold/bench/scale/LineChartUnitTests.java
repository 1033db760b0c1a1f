package dev.leasehold.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.bench.scale.LineChart.Point;
import dev.leasehold.bench.scale.LineChart.Series;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The chart as an SVG reader sees it: parsed, not compared as text, so that layout may change. */
class LineChartUnitTests {
  private static final List<Series> TWO = List.of(
      new Series("leasehold", List.of(new Point(1, 120), new Point(10, 300), new Point(100, 250), new Point(1000, 0),
          new Point(10000, 1800))),
      new Series("redisson", List.of(new Point(1, 90), new Point(100, 400), new Point(10000, 1700))));

  @Test
  void theChartIsWellFormedSvg_ofItsSizeOnWhite() throws Exception {
    Element svg = parse(LineChart.svg("Acquire", "holders", "ops/s", true, TWO)).getDocumentElement();

    assertEquals("svg", svg.getTagName());
    assertEquals("http://www.w3.org/2000/svg", svg.getAttribute("xmlns"));
    assertEquals("640", svg.getAttribute("width"));
    assertEquals("400", svg.getAttribute("height"));
    Element background = (Element) svg.getElementsByTagName("rect").item(0);
    assertEquals("white", background.getAttribute("fill"));
    List<String> texts = texts(svg);
    assertTrue(texts.containsAll(List.of("Acquire", "holders", "ops/s")), texts.toString());
  }

  @Test
  void eachSeriesIsOnePolylineInItsOwnColour_withOneCirclePerPoint() throws Exception {
    List<Series> three = new ArrayList<>(TWO);
    three.add(new Series("alone", List.of(new Point(10, 5))));
    Document doc = parse(LineChart.svg("t", "x", "y", true, three));

    assertEquals(3, doc.getElementsByTagName("polyline").getLength());
    List<Element> groups = byClass(doc, "g", "series");
    assertEquals(3, groups.size());
    List<String> colours = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Element polyline = (Element) groups.get(i).getElementsByTagName("polyline").item(0);
      int points = three.get(i).points().size();
      assertEquals(points, polyline.getAttribute("points").trim().split(" ").length);
      NodeList circles = groups.get(i).getElementsByTagName("circle");
      assertEquals(points, circles.getLength());
      for (int j = 0; j < points; j++) {
        assertEquals(polyline.getAttribute("stroke"), ((Element) circles.item(j)).getAttribute("fill"));
      }
      colours.add(polyline.getAttribute("stroke"));
    }
    assertEquals(List.of("#1f77b4", "#ff7f0e", "#2ca02c"), colours);
  }

  @Test
  void eachCircleHasATooltip_givingItsXAndY() throws Exception {
    Document doc = parse(LineChart.svg("t", "x", "y", true, TWO));

    Element circle = (Element) byClass(doc, "g", "series").get(0).getElementsByTagName("circle").item(1);
    assertEquals("leasehold: x=10, y=300", circle.getElementsByTagName("title").item(0).getTextContent());
  }

  @Test
  void namesAndLabelsAreEscaped() throws Exception {
    String name = "a<b & \"c\" 'd'>";
    String svg = LineChart.svg("p < q & r", "x & y", "<y>", false,
        List.of(new Series(name, List.of(new Point(0, 1), new Point(1, 2)))));

    Document doc = parse(svg);
    assertTrue(svg.contains("a&lt;b &amp;"), svg);
    assertEquals(List.of(name), texts(byClass(doc, "g", "legend").get(0)));
    assertTrue(texts(doc.getDocumentElement()).containsAll(List.of("p < q & r", "x & y", "<y>")));
    assertTrue(doc.getElementsByTagName("title").item(0).getTextContent().startsWith(name + ": x=0"));
  }

  @ParameterizedTest(name = "logX={0}")
  @ValueSource(booleans = {false, true})
  void largerXIsFurtherRight_andLargerYIsHigher(boolean logX) throws Exception {
    Document doc = parse(LineChart.svg("t", "x", "y", logX, TWO));

    List<Element> groups = byClass(doc, "g", "series");
    List<double[]> data = new ArrayList<>();
    List<double[]> drawn = new ArrayList<>();
    for (int i = 0; i < TWO.size(); i++) {
      NodeList circles = groups.get(i).getElementsByTagName("circle");
      for (int j = 0; j < circles.getLength(); j++) {
        Point p = TWO.get(i).points().get(j);
        Element c = (Element) circles.item(j);
        data.add(new double[] {p.x(), p.y()});
        drawn.add(new double[] {number(c, "cx"), number(c, "cy")});
      }
    }
    // Across series too: both share one pair of axes.
    for (int a = 0; a < data.size(); a++) {
      for (int b = 0; b < data.size(); b++) {
        String pair = "points " + a + " and " + b;
        assertEquals(Double.compare(data.get(a)[0], data.get(b)[0]), Double.compare(drawn.get(a)[0], drawn.get(b)[0]),
            pair);
        assertEquals(Double.compare(data.get(a)[1], data.get(b)[1]), -Double.compare(drawn.get(a)[1], drawn.get(b)[1]),
            pair);
      }
    }
  }

  @Test
  void onALogAxis_eachPowerOfTenIsATick_equallySpaced() throws Exception {
    Document doc = parse(LineChart.svg("t", "x", "y", true, TWO));

    List<Element> ticks = byClass(doc, "text", "x-tick");
    assertEquals(List.of("1", "10", "100", "1k", "10k"), ticks.stream().map(Element::getTextContent).toList());
    double at100 = number(ticks.get(2), "x");
    double at1000 = number(ticks.get(3), "x");
    double at10000 = number(ticks.get(4), "x");
    assertTrue(at100 < at1000 && at1000 < at10000);
    assertEquals(at1000 - at100, at10000 - at1000, 0.15);
    // The point at x=1000 sits on its tick.
    Element circle = (Element) byClass(doc, "g", "series").get(0).getElementsByTagName("circle").item(3);
    assertEquals(at1000, number(circle, "cx"), 0.15);
  }

  @Test
  void onALinearAxis_ticksAreRoundAndEquallySpaced() throws Exception {
    Document doc = parse(LineChart.svg("t", "threads", "y", false,
        List.of(new Series("s", List.of(new Point(1, 1), new Point(2, 1), new Point(4, 1), new Point(8, 1))))));

    List<Element> ticks = byClass(doc, "text", "x-tick");
    assertEquals(List.of("0", "2", "4", "6", "8"), ticks.stream().map(Element::getTextContent).toList());
    double spacing = number(ticks.get(1), "x") - number(ticks.get(0), "x");
    assertEquals(spacing, number(ticks.get(4), "x") - number(ticks.get(3), "x"), 0.15);
  }

  @Test
  void theYAxisRunsFromZeroToTheNextNiceValue_inFiveSteps() throws Exception {
    Document doc = parse(LineChart.svg("t", "x", "y", true, TWO));

    List<Element> ticks = byClass(doc, "text", "y-tick");
    assertEquals(List.of("0", "400", "800", "1.2k", "1.6k", "2k"), ticks.stream().map(Element::getTextContent).toList());
    assertEquals(List.of("0", "0.1", "0.2", "0.3", "0.4", "0.5"), yTicks(0.3));
    assertEquals(List.of("0", "500", "1k", "1.5k", "2k", "2.5k"), yTicks(2001));
    assertEquals(List.of("0", "2M", "4M", "6M", "8M", "10M"), yTicks(5_000_001));
    assertEquals(List.of("0", "0.2", "0.4", "0.6", "0.8", "1"), yTicks(0));
    // The axis tops out at 2000, not at the largest y: the point at 1800 is drawn 0.9 of the way up.
    NodeList circles = byClass(doc, "g", "series").get(0).getElementsByTagName("circle");
    double rise = number((Element) circles.item(3), "cy") - number((Element) circles.item(4), "cy");
    assertEquals(0.9, rise / (number(ticks.get(0), "y") - number(ticks.get(5), "y")), 0.002);
  }

  @Test
  void oneSeriesOfOnePoint_isDrawn() throws Exception {
    for (boolean logX : new boolean[] {false, true}) {
      Document doc = parse(LineChart.svg("t", "x", "y", logX, List.of(new Series("s", List.of(new Point(100, 7))))));

      assertEquals(1, doc.getElementsByTagName("polyline").getLength());
      assertEquals(1, byClass(doc, "g", "series").get(0).getElementsByTagName("circle").getLength());
    }
  }

  @Test
  void numbersHaveAtMostOneDecimal_whateverTheDefaultLocale() throws Exception {
    Locale before = Locale.getDefault();
    String svg;
    try {
      // German formats a decimal comma, which SVG would not read.
      Locale.setDefault(Locale.GERMANY);
      svg = LineChart.svg("t", "x", "y", false,
          List.of(new Series("s", List.of(new Point(1.2345, 3.3333), new Point(2.71828, 0.123)))));
    } finally {
      Locale.setDefault(before);
    }

    Pattern oneDecimal = Pattern.compile("-?\\d+(\\.\\d)?");
    NodeList all = parse(svg).getElementsByTagName("*");
    int checked = 0;
    for (int i = 0; i < all.getLength(); i++) {
      Element e = (Element) all.item(i);
      for (String attribute : List.of("x", "y", "cx", "cy", "x1", "y1", "x2", "y2")) {
        if (e.hasAttribute(attribute)) {
          assertTrue(oneDecimal.matcher(e.getAttribute(attribute)).matches(), attribute + "=" + e.getAttribute(attribute));
          checked++;
        }
      }
    }
    Element polyline = (Element) parse(svg).getElementsByTagName("polyline").item(0);
    for (String number : polyline.getAttribute("points").split("[ ,]")) {
      assertTrue(oneDecimal.matcher(number).matches(), "points=" + polyline.getAttribute("points"));
      checked++;
    }
    assertTrue(checked > 20);
    assertTrue(svg.contains("s: x=1.2, y=3.3"), svg);
  }

  @Test
  void badInput_isRejectedNamingTheSeries() {
    assertThrows(IllegalArgumentException.class, () -> LineChart.svg("t", "x", "y", false, List.of()));
    assertRejected(false, new Series("empty", List.of()));
    assertRejected(false, new Series("nan", List.of(new Point(1, 1), new Point(2, Double.NaN))));
    assertRejected(false, new Series("inf", List.of(new Point(1, Double.POSITIVE_INFINITY))));
    assertRejected(false, new Series("negative", List.of(new Point(1, -0.5))));
    assertRejected(false, new Series("nanX", List.of(new Point(Double.NaN, 1))));
    assertRejected(true, new Series("zeroX", List.of(new Point(0, 1), new Point(10, 1))));
    assertRejected(true, new Series("negativeX", List.of(new Point(-1, 1))));
    // Only a log axis needs a positive x.
    LineChart.svg("t", "x", "y", false, List.of(new Series("zeroX", List.of(new Point(0, 1), new Point(-10, 1)))));
  }

  private static void assertRejected(boolean logX, Series bad) {
    List<Series> series = List.of(new Series("good", List.of(new Point(1, 1))), bad);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LineChart.svg("t", "x", "y", logX, series), bad.name());
    assertTrue(e.getMessage().contains("\"" + bad.name() + "\""), e.getMessage());
  }

  private static List<String> yTicks(double maxY) throws Exception {
    Document doc = parse(LineChart.svg("t", "x", "y", false,
        List.of(new Series("s", List.of(new Point(1, 0), new Point(2, maxY))))));
    return byClass(doc, "text", "y-tick").stream().map(Element::getTextContent).toList();
  }

  private static Document parse(String svg) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<Element> byClass(Document doc, String tag, String cssClass) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = doc.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      Element e = (Element) nodes.item(i);
      if (e.getAttribute("class").equals(cssClass)) {
        found.add(e);
      }
    }
    return found;
  }

  private static List<String> texts(Element under) {
    List<String> found = new ArrayList<>();
    NodeList nodes = under.getElementsByTagName("text");
    for (int i = 0; i < nodes.getLength(); i++) {
      found.add(nodes.item(i).getTextContent());
    }
    return found;
  }

  private static double number(Element e, String attribute) {
    return Double.parseDouble(e.getAttribute(attribute));
  }
}
