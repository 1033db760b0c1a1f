package dev.leasehold.spec.tlc;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The INVARIANT(S) and PROPERTY(IES) sections of a TLC configuration: the definitions they list,
 * each with its section's keyword, and the lines that are theirs. A section runs from its keyword
 * line (which may name one definition) to the next line that is neither indented nor empty.
 *
 * <p>This record is immutable.
 *
 * @param keywords each listed name, in the order listed, with "INVARIANT" or "PROPERTY"
 * @param lines the indexes of the sections' lines
 */
record CfgListing(Map<String, String> keywords, Set<Integer> lines) {
  private static final Pattern SECTION = Pattern.compile("(?:INVARIANTS?|PROPERTY|PROPERTIES)\\b(.*)");

  static CfgListing of(List<String> cfgLines) {
    Map<String, String> keywords = new LinkedHashMap<>();
    Set<Integer> in = new HashSet<>();
    String section = null;
    for (int i = 0; i < cfgLines.size(); i++) {
      String line = cfgLines.get(i);
      String t = line.trim();
      Matcher keywordLine = SECTION.matcher(t);
      if (keywordLine.matches()) {
        section = t.startsWith("INVARIANT") ? "INVARIANT" : "PROPERTY";
        list(keywordLine.group(1).trim(), section, keywords);
        in.add(i);
      } else if (section != null && (line.startsWith(" ") || t.isEmpty())) {
        list(t, section, keywords);
        in.add(i);
      } else {
        section = null;
      }
    }
    return new CfgListing(Collections.unmodifiableMap(keywords), Set.copyOf(in));
  }

  private static void list(String name, String section, Map<String, String> keywords) {
    if (name.matches("\\w+")) {
      keywords.putIfAbsent(name, section);
    }
  }

  List<String> names() {
    return List.copyOf(keywords.keySet());
  }
}
