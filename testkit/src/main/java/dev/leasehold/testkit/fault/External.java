package dev.leasehold.testkit.fault;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Someone else's command on the lease key, outside the library (an operator, a script, another
 * application sharing the keyspace): the model actions {@code externalDelete},
 * {@code externalOverwrite}, {@code externalPersist} and {@code externalRetype}. The spec has no
 * such action (it assumes only the scripts touch the key); the chains hold the adapter to the twin
 * and to every invariant but those an outside write breaks by definition ({@code WorldConfig#withExternalWrites}).
 *
 * <p>This enum is immutable.
 */
public enum External {
  /** DEL of the lease key: the lease is gone (the fencing counter stays). */
  DELETE,
  /** SET of a value no attempt has, with a TTL: someone else holds the key. */
  OVERWRITE,
  /** PERSIST: the key no longer expires (PTTL -1). */
  PERSIST,
  /** DEL and HSET, with a TTL: the key holds a hash, which every script must treat as someone else's. */
  RETYPE;

  /** The value an overwrite stores: shaped like an ownership, but of no attempt and no owner token. */
  public static final String FOREIGN_VALUE = "intruder-token:intruder-operation";

  /** The model actions, off unless a config includes them (WorldConfig.withExternalWrites). */
  public static List<String> actions() {
    return Arrays.stream(values()).map(External::action).toList();
  }

  /** The model action: externalDelete, externalOverwrite, externalPersist, externalRetype. */
  public String action() {
    String n = name().toLowerCase(Locale.ROOT);
    return "external" + Character.toUpperCase(n.charAt(0)) + n.substring(1);
  }
}
