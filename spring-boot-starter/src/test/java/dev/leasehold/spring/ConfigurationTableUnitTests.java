package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.redis.RedisLeases;
import dev.leasehold.docs.MarkdownDocs;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration table agrees with the code: one row per public setting of
 * {@link RedisLeases.Builder}, the defaults it shows are the {@code DEFAULT_*} constants, and the
 * Spring Boot properties it names are {@link LeaseholdProperties}'s. Here because this module's
 * tests have both the builder and the properties.
 */
class ConfigurationTableUnitTests {
  /** The properties set elsewhere: the connection (the guide's "Spring Boot" section) and the switch. */
  private static final Set<String> NOT_IN_THE_TABLE =
      Set.of("leasehold.enabled", "leasehold.uri", "leasehold.sentinel.master", "leasehold.sentinel.nodes");
  /** The constants whose name is not their setting's. */
  private static final Map<String, String> SETTING_OF = Map.of(
      "DEFAULT_MAX_REGISTRATIONS", "maxWatchdogRegistrations",
      "DEFAULT_REPLICA_ACK_TIMEOUT", "replicaAck");
  /** A property in the table's code spans; "a `MeterRegistry` bean" names none. */
  private static final Pattern PROPERTY = Pattern.compile("`((?:leasehold)?\\.[^`]*)`");
  private static final Pattern DURATION = Pattern.compile("(\\d+) (ms|s|min)");

  /** A row of the table: the setting's name (without its parameters) and the cells as written. */
  private record Row(String setting, String property, String defaults) {}

  private static Map<String, Row> rows() {
    Map<String, Row> rows = new LinkedHashMap<>();
    for (List<String> cells : MarkdownDocs.table(MarkdownDocs.page("README.md"), "Configuration")) {
      String setting = cells.get(0).replace("`", "").replaceAll("\\(.*", "");
      rows.put(setting, new Row(setting, cells.get(1), cells.get(2)));
    }
    return rows;
  }

  @Test
  void everySettingOfTheBuilder_hasARow_andEveryRowIsASetting() {
    Set<String> setters = Arrays.stream(RedisLeases.Builder.class.getMethods())
        .filter(m -> m.getReturnType() == RedisLeases.Builder.class && !Modifier.isStatic(m.getModifiers()))
        .map(Method::getName).collect(Collectors.toCollection(TreeSet::new));
    assertThat(new TreeSet<>(rows().keySet())).as("the README's configuration rows vs RedisLeases.Builder's setters")
        .isEqualTo(setters);
  }

  @Test
  void theDefaultsShown_areTheConstants() throws IllegalAccessException {
    Map<String, Row> rows = rows();
    List<Field> constants = new ArrayList<>();
    Stream.of(RedisLeaseConfig.class, RedisLeases.class).flatMap(c -> Arrays.stream(c.getFields()))
        .filter(f -> f.getName().startsWith("DEFAULT_")).forEach(constants::add);
    constants.add(field(LeaseWatchdog.class, "DEFAULT_MAX_REGISTRATIONS"));
    SoftAssertions softly = new SoftAssertions();
    for (Field constant : constants) {
      String name = constant.getDeclaringClass().getSimpleName() + "." + constant.getName();
      String setting = SETTING_OF.getOrDefault(constant.getName(), camel(constant.getName().substring("DEFAULT_".length())));
      Object value = constant.get(null);
      Row row = rows.get(setting);
      softly.assertThat(row).as("a row for " + setting + ", whose default is " + name).isNotNull();
      if (row != null) {
        softly.assertThat(parse(row.defaults())).as("the default column of " + setting + ", \"" + row.defaults() + "\", shows " + name)
            .contains(value instanceof Enum<?> e ? e.name() : value);
      }
    }
    softly.assertAll();
  }

  @Test
  void thePropertiesNamed_areTheStartersProperties() {
    Set<String> properties = new TreeSet<>(LeaseholdMetadataTests.propertyNames());
    Set<String> named = new TreeSet<>();
    for (Row row : rows().values()) {
      String previous = "";
      Matcher code = PROPERTY.matcher(row.property());
      while (code.find()) {
        // ".timeout" after "leasehold.replica-ack.replicas" is "leasehold.replica-ack.timeout".
        String name = code.group(1).startsWith(".") ? previous.substring(0, previous.lastIndexOf('.')) + code.group(1) : code.group(1);
        named.add(name);
        previous = name;
      }
    }
    assertThat(named).as("properties named in the README's configuration table").isSubsetOf(properties);
    properties.removeAll(NOT_IN_THE_TABLE);
    assertThat(named).as("the starter's properties, in the README's configuration table").containsAll(properties);
  }

  /** The values a default cell shows: "0 (off), 100 ms" is 0 and 100 ms; "`CLOCK_FLOOR`" is CLOCK_FLOOR. */
  private static List<Object> parse(String cell) {
    List<Object> values = new ArrayList<>();
    for (String part : cell.replaceAll("\\([^)]*\\)", "").split(",")) {
      String text = part.replace("`", "").strip();
      Matcher duration = DURATION.matcher(text);
      if (duration.matches()) {
        long n = Long.parseLong(duration.group(1));
        values.add(switch (duration.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          default -> Duration.ofMinutes(n);
        });
      } else if (text.matches("\\d+")) {
        values.add(Integer.parseInt(text));
      } else if (text.equals("true") || text.equals("false")) {
        values.add(Boolean.parseBoolean(text));
      } else {
        values.add(text);
      }
    }
    return values;
  }

  /** DRIFT_BUDGET is driftBudget. */
  private static String camel(String constant) {
    String[] words = constant.toLowerCase(Locale.ROOT).split("_");
    StringBuilder name = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      name.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return name.toString();
  }

  private static Field field(Class<?> type, String name) {
    try {
      return type.getField(name);
    } catch (NoSuchFieldException e) {
      throw new AssertionError(type.getSimpleName() + " has no " + name, e);
    }
  }
}
