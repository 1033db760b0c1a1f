package dev.leasehold.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * An {@code INFO commandstats} reply read into command name -> field -> value
 * ({@code cmdstat_<name>:calls=..,usec=..,usec_per_call=..,...}). The script costs and the
 * one-round-trip test and the scale runs read the server's counts through here.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class CommandStats {
  private CommandStats() {}

  public static Map<String, Map<String, String>> parse(String commandstats) {
    Map<String, Map<String, String>> stats = new TreeMap<>();
    for (String line : commandstats.split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      Map<String, String> fields = new TreeMap<>();
      for (String pair : line.substring(colon + 1).split(",")) {
        int eq = pair.indexOf('=');
        fields.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
      stats.put(line.substring("cmdstat_".length(), colon), fields);
    }
    return stats;
  }

  /** {@code usec_per_call} of {@code command}. */
  static double usecPerCall(String commandstats, String command) {
    Map<String, String> fields = parse(commandstats).get(command);
    if (fields == null || !fields.containsKey("usec_per_call")) {
      throw new IllegalStateException("no " + command + " in INFO commandstats");
    }
    return Double.parseDouble(fields.get("usec_per_call"));
  }
}
