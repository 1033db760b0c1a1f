package dev.leasehold.testkit.sim;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * One simulated server's Lua: its script cache ({@code SCRIPT LOAD}, {@code EVALSHA},
 * {@code SCRIPT FLUSH}) and the {@code redis} library the scripts call, as Redis 7.0 runs them:
 *
 * <ul>
 *   <li>A script is filed under the SHA1 of its text. A leading {@code #!lua} line is parsed as
 *       Redis 7 does ({@code flags=no-writes} and the other flags) and dropped, its line feed kept
 *       so that line numbers hold. A script without one runs in Redis's eval compatibility mode.
 *   <li>{@code KEYS} and {@code ARGV} are set per call; the globals are otherwise read-only, and
 *       reading a global that does not exist is an error, as in Redis.
 *   <li>{@code redis.call} raises an error reply as a table {@code {err = ...}}; {@code redis.pcall}
 *       returns it. Replies convert as Redis converts them: integer to number, bulk to string, nil
 *       to {@code false}, status to {@code {ok = ...}}, array to a table; and back: number to
 *       integer (truncated), string to bulk, {@code false} to nil, {@code true} to 1, a table with a
 *       string {@code err} or {@code ok} field to an error or status, any other table to an array
 *       that stops at its first nil.
 *   <li>A read-only run ({@code EVALSHA_RO}, or a {@code no-writes} script) refuses write commands.
 * </ul>
 *
 * <p>LuaJ 3.0.1 is Lua 5.2; Redis embeds Lua 5.1. What differs, and what it means for the four
 * scripts:
 *
 * <ul>
 *   <li>{@code string.format('%d')} (and {@code %i}): LuaJ cuts the number to 32 bits; replaced here
 *       by {@link LuaFormat}, Lua 5.1's 64-bit {@code long}. acquire.lua formats its clock-floor token
 *       with it. LuaJ's other conversions are its own ({@code %5.2f} ignores the precision); the
 *       scripts use none.
 *   <li>{@code tonumber}: LuaJ answers nil for {@code "inf"} and {@code "nan"}, which Redis's Lua
 *       (glibc {@code strtod}) reads as numbers. It matters only if someone SETs the fencing counter
 *       to such a text: a grant refuses it on both (not a decimal integer), a replay reports it as
 *       0 here.
 *   <li>{@code tostring} of a number: LuaJ writes integral values whole ({@code 1e15} as
 *       {@code 1000000000000000}), Lua 5.1 with {@code %.14g} ({@code 1e+15}). The scripts never
 *       turn a number into a string but through {@code string.format('%d')}.
 *   <li>Lua 5.1 globals that LuaJ lacks ({@code unpack}, {@code loadstring}, {@code setfenv},
 *       {@code getfenv}, {@code table.getn}), and Redis's extra libraries ({@code bit}, {@code cjson},
 *       {@code cmsgpack}, {@code struct}): not loaded; the scripts use none.
 *   <li>Error texts: LuaJ's runtime messages ({@code attempt to index ? (a nil value)}) are worded
 *       unlike Lua 5.1's; the wrapping ({@code ... script: <sha>, on @user_script:<line>.}) is
 *       Redis 7.0's. Error replies of Redis commands carry Redis's own text. An error raised in a
 *       tail call ({@code return redis.call(...)}) has no line here, so no wrapping; the scripts
 *       make no such call.
 *   <li>A number passed to {@code redis.call} becomes its decimal integer text when integral, else
 *       Java's shortest form (Redis 7 uses the shortest round-trip form too, 6.2 {@code %.17g}).
 * </ul>
 *
 * <p>A script text is parsed and compiled once for the whole JVM, not once per server (LuaJ's
 * {@link Prototype} is not changed by running it), so a server's {@code SCRIPT LOAD} costs a map
 * look-up and a closure over the server's own globals.
 *
 * <p>This class is not threadsafe: {@link SimulatedRedis} runs one command at a time.
 */
final class LuaEngine {
  /** Script texts compiled so far, by text. */
  private static final Map<String, CompiledScript> COMPILED = new ConcurrentHashMap<>();
  private static final Pattern FILE_LINE = Pattern.compile("^@?user_script:(\\d+):? ?");

  /** A loaded script: its flags and the function to run. */
  private record Script(String sha, boolean compatMode, boolean noWrites, LuaValue function) {}

  private final Globals globals = new Globals();
  private final Map<String, Script> scripts = new HashMap<>();
  private final Function<List<String>, Object> commands;
  private boolean readOnlyRun;

  /** @param commands runs one command on the keyspace: argv with the name in upper case */
  LuaEngine(Function<List<String>, Object> commands) {
    this.commands = commands;
    globals.load(new BaseLib());
    globals.load(new PackageLib());
    globals.load(new TableLib());
    globals.load(new StringLib());
    globals.load(new JseMathLib());
    LoadState.install(globals);
    LuaC.install(globals);
    LuaValue string = globals.get("string");
    string.set("format", new LuaFormat(string.get("format")));
    for (String unsafe : List.of("dofile", "loadfile", "require", "module", "package")) {
      globals.set(unsafe, LuaValue.NIL);
    }
    globals.set("redis", redisLibrary());
    LuaTable guard = new LuaTable();
    guard.set("__newindex", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        throw new LuaError("Attempt to modify a readonly table");
      }
    });
    guard.set("__index", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        throw new LuaError("Script attempted to access nonexistent global variable '" + args.arg(2).tojstring() + "'");
      }
    });
    globals.setmetatable(guard);
  }

  /** SCRIPT LOAD: files {@code text} under its SHA1 and returns it. */
  String load(String text) {
    CompiledScript compiled = COMPILED.computeIfAbsent(text, CompiledScript::of);
    scripts.computeIfAbsent(compiled.sha(),
        sha -> new Script(sha, compiled.compatMode(), compiled.noWrites(), new LuaClosure(compiled.prototype(), globals)));
    return compiled.sha();
  }

  boolean loaded(String sha) {
    return scripts.containsKey(sha);
  }

  /** SCRIPT FLUSH: the next EVALSHA of any script answers NOSCRIPT. */
  void flush() {
    scripts.clear();
  }

  /** EVALSHA (or EVALSHA_RO when {@code readOnlyCommand}): the script's reply, or a RedisError. */
  Object evalsha(String sha, boolean readOnlyCommand, List<String> keys, List<String> args) {
    Script script = scripts.get(sha.toLowerCase(java.util.Locale.ROOT));
    if (script == null) {
      throw new RedisError(RedisError.NOSCRIPT);
    }
    if (readOnlyCommand && !script.compatMode() && !script.noWrites()) {
      throw new RedisError("ERR Can not run script with write flag on readonly command");
    }
    readOnlyRun = readOnlyCommand || (!script.compatMode() && script.noWrites());
    globals.rawset("KEYS", LuaReplies.array(keys));
    globals.rawset("ARGV", LuaReplies.array(args));
    LuaValue result;
    try {
      result = script.function().call();
    } catch (LuaError e) {
      throw runError(script, e);
    } catch (StackOverflowError e) {
      throw new RedisError("ERR Error running script, stack overflow");
    }
    return LuaReplies.toReply(result);
  }

  /** The error reply for a script that raised {@code e}, worded as Redis 7.0 words it. */
  private static RedisError runError(Script script, LuaError e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    Matcher at = FILE_LINE.matcher(message);
    String line = at.find() ? at.group(1) : null;
    LuaValue object = e.getMessageObject();
    String err;
    if (object != null && object.istable() && object.get(LuaReplies.ERR).isstring()) {
      err = object.get(LuaReplies.ERR).tojstring();
    } else {
      String text = object != null && object.isstring() ? object.tojstring() : message;
      Matcher m = FILE_LINE.matcher(text);
      err = "ERR " + (m.find() ? "user_script:" + m.group(1) + ": " + text.substring(m.end()) : text);
    }
    return new RedisError(line == null ? err : err + " script: " + script.sha() + ", on @user_script:" + line + ".");
  }

  private LuaTable redisLibrary() {
    LuaTable redis = new LuaTable();
    redis.set("call", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        Object reply = command(args);
        if (reply instanceof RedisError e) {
          throw new LuaError(LuaReplies.errorTable(e.getMessage()));
        }
        return LuaReplies.toLua(reply);
      }
    });
    redis.set("pcall", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        Object reply = command(args);
        return reply instanceof RedisError e ? LuaReplies.errorTable(e.getMessage()) : LuaReplies.toLua(reply);
      }
    });
    redis.set("status_reply", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaValue.tableOf(new LuaValue[] {LuaReplies.OK, args.checkstring(1)});
      }
    });
    redis.set("error_reply", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaReplies.errorTable(args.checkjstring(1));
      }
    });
    redis.set("sha1hex", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaValue.valueOf(CompiledScript.sha1(args.checkjstring(1)));
      }
    });
    redis.set("log", new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return LuaValue.NONE;
      }
    });
    redis.set("LOG_DEBUG", 0);
    redis.set("LOG_VERBOSE", 1);
    redis.set("LOG_NOTICE", 2);
    redis.set("LOG_WARNING", 3);
    return redis;
  }

  /** Runs one {@code redis.call}: the reply, or the error reply as a RedisError (returned, not thrown). */
  private Object command(Varargs args) {
    if (args.narg() == 0) {
      return new RedisError("ERR Please specify at least one argument for this redis lib call");
    }
    List<String> argv = new ArrayList<>(args.narg());
    for (int i = 1; i <= args.narg(); i++) {
      LuaValue v = args.arg(i);
      if (v.type() == LuaValue.TNUMBER) {
        double d = v.todouble();
        argv.add(d == Math.rint(d) && Math.abs(d) < 1e17 ? Long.toString((long) d) : Double.toString(d));
      } else if (v.type() == LuaValue.TSTRING) {
        argv.add(v.tojstring());
      } else {
        return new RedisError("ERR Lua redis lib command arguments must be strings or integers");
      }
    }
    String name = argv.get(0).toUpperCase(java.util.Locale.ROOT);
    argv.set(0, name);
    if (!Keyspace.known(name)) {
      return new RedisError("ERR Unknown Redis command called from script");
    }
    if (readOnlyRun && Keyspace.writes(name)) {
      return new RedisError("ERR Write commands are not allowed from read-only scripts.");
    }
    try {
      return commands.apply(argv);
    } catch (RedisError e) {
      return e.getMessage().startsWith("ERR wrong number of arguments")
          ? new RedisError("ERR Wrong number of args calling Redis command from script") : e;
    }
  }
}
