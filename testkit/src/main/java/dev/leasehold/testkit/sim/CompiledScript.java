package dev.leasehold.testkit.sim;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * A script text as Redis 7 reads it, parsed and compiled once: the shebang's flags (no shebang is
 * the compat mode of Redis 6), and the body compiled with its line feed kept so line numbers in
 * errors hold. The same for every server, so {@link LuaEngine} compiles each text once per JVM.
 *
 * <p>This record is immutable.
 */
record CompiledScript(String sha, boolean compatMode, boolean noWrites, Prototype prototype) {
  static CompiledScript of(String text) {
      boolean compatMode = !text.startsWith("#!");
      boolean noWrites = false;
      String body = text;
      if (!compatMode) {
        int end = text.indexOf('\n');
        noWrites = parseShebang(end < 0 ? text : text.substring(0, end));
        body = end < 0 ? "" : text.substring(end); // the line feed stays, so line numbers hold
      }
      return new CompiledScript(sha1(text), compatMode, noWrites, compile(body));
  }

  private static Prototype compile(String body) {
    try {
      return LuaC.instance.compile(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), "@user_script");
    } catch (LuaError e) {
      throw new RedisError("ERR Error compiling script (new function): " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Redis 7's {@code #!<engine> [flags=a,b]}; answers whether {@code no-writes} is among the flags. */
  private static boolean parseShebang(String shebang) {
    String[] parts = shebang.substring(2).trim().split(" +");
    if (!parts[0].equals("lua")) {
      throw new RedisError("ERR Unexpected engine in script shebang");
    }
    boolean noWrites = false;
    for (int i = 1; i < parts.length; i++) {
      if (!parts[i].startsWith("flags=")) {
        throw new RedisError("ERR Unknown lua shebang option: " + parts[i]);
      }
      for (String flag : parts[i].substring("flags=".length()).split(",")) {
        switch (flag) {
          case "no-writes" -> noWrites = true;
          case "", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys" -> { }
          default -> throw new RedisError("ERR Unexpected flag in script shebang: " + flag);
        }
      }
    }
    return noWrites;
  }


  static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }

}
