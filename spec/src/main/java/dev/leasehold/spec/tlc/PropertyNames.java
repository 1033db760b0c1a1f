package dev.leasehold.spec.tlc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names what TLC reports as violated by the definition the configuration lists. TLC names a
 * violated INVARIANT, names a conjunct []P of a PROPERTY by P, and an action property only by its
 * location in a module; a configuration's expectation names the listed definition.
 *
 * <p>This class is stateless.
 */
public final class PropertyNames {
  private static final Pattern LOCATION = Pattern.compile("line (\\d+), col \\d+ to line \\d+, col \\d+ of module (\\w+)");
  private static final Pattern DEF = Pattern.compile("^(\\w+)(\\(.*?\\))?\\s*==");

  private PropertyNames() {}

  /**
   * @param violated what TLC printed after "Invariant"/"Action property"
   * @param cfg the configuration that was checked
   * @param spec the module that defines the listed properties (Lease.tla)
   */
  public static String canonical(String violated, Path cfg, Path spec) {
    try {
      String name = violated;
      Matcher loc = LOCATION.matcher(violated);
      if (loc.find()) {
        name = enclosingDefinition(cfg.resolveSibling(loc.group(2) + ".tla"), Integer.parseInt(loc.group(1)));
      }
      CfgListing listing = CfgListing.of(Files.readAllLines(cfg));
      List<String> listed = listing.names();
      if (listed.contains(name)) {
        return name;
      }
      // TLC does not name a violated temporal property: it is the one listed, if one is.
      List<String> properties = listed.stream().filter(n -> listing.keywords().get(n).equals("PROPERTY")).toList();
      if (violated.equals(TlcOutput.TEMPORAL) && properties.size() == 1) {
        return properties.get(0);
      }
      // A conjunct of a listed property: the listed definition whose body mentions it.
      List<String> lines = Files.readAllLines(spec);
      for (String l : listed) {
        String body = definitionBody(lines, l);
        if (body != null && Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(body).find()) {
          return l;
        }
      }
      return name;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names under INVARIANT(S) and PROPERTY(IES) in a configuration. */
  static List<String> listedNames(Path cfg) throws IOException {
    return CfgListing.of(Files.readAllLines(cfg)).names();
  }

  private static String enclosingDefinition(Path file, int line) throws IOException {
    List<String> lines = Files.readAllLines(file);
    for (int i = Math.min(line, lines.size()) - 1; i >= 0; i--) {
      Matcher d = DEF.matcher(lines.get(i));
      if (d.find()) {
        return d.group(1);
      }
    }
    return "line " + line;
  }

  private static String definitionBody(List<String> lines, String name) {
    for (int i = 0; i < lines.size(); i++) {
      Matcher d = DEF.matcher(lines.get(i));
      if (d.find() && d.group(1).equals(name)) {
        StringBuilder b = new StringBuilder(lines.get(i));
        for (int j = i + 1; j < lines.size() && (lines.get(j).startsWith(" ") || lines.get(j).isEmpty()); j++) {
          b.append('\n').append(lines.get(j));
        }
        return b.toString();
      }
    }
    return null;
  }
}
