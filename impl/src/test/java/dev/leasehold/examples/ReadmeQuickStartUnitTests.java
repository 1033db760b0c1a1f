package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start compiles: the first {@code java} block under "## Quick start" is
 * compiled as it stands, against this module's test classpath, and a failure shows the compiler's
 * diagnostics. Its body is {@link ReadmeExample}'s snippet, which {@code ReadmeExampleIntegrationTests}
 * runs against a real redis-server.
 */
class ReadmeQuickStartUnitTests {
  private static final Path README = Path.of("..", "README.md");
  private static final Pattern CLASS_NAME = Pattern.compile("public\\s+(?:final\\s+)?class\\s+(\\w+)");

  @Test
  void theQuickStart_compiles(@TempDir Path classes) throws IOException {
    String source = quickStart();
    Matcher name = CLASS_NAME.matcher(source);
    assertTrue(name.find(), "the quick start declares a public class");

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertNotNull(compiler, "a JDK with javac runs the tests");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
      JavaFileObject unit = new SimpleJavaFileObject(
          URI.create("string:///" + name.group(1) + JavaFileObject.Kind.SOURCE.extension), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return source;
        }
      };
      boolean compiled = compiler.getTask(out, files, diagnostics,
          List.of("-classpath", testClasspath(), "--release", "17", "-proc:none", "-Xlint:all", "-Werror"),
          null, List.of(unit)).call();
      assertTrue(compiled, () -> "the README's quick start does not compile:\n" + report(diagnostics) + out);
    }
  }

  @Test
  void theQuickStart_showsTheExampleThatRunsAgainstRedis() throws IOException {
    String example = Files.readString(Path.of("src/test/java/dev/leasehold/examples/ReadmeExample.java"));
    String snippet = example.substring(example.indexOf("// --- README snippet begins") + "// --- README snippet begins".length(),
        example.indexOf("    // --- README snippet ends"));
    assertTrue(normalized(quickStart()).contains(normalized(snippet)),
        "the README's quick start shows ReadmeExample's snippet, which ReadmeExampleIntegrationTests runs");
  }

  /** The first {@code java} block after the "## Quick start" heading, as written. */
  static String quickStart() throws IOException {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int heading = readme.indexOf("\n## Quick start\n");
    assertTrue(heading >= 0, "README.md has a \"## Quick start\" section");
    int next = readme.indexOf("\n## ", heading + 1);
    String section = readme.substring(heading, next < 0 ? readme.length() : next);
    int open = section.indexOf("```java\n");
    assertTrue(open >= 0, "the quick start has a java block");
    int close = section.indexOf("\n```", open + 8);
    assertTrue(close > open, "the quick start's java block is closed");
    return section.substring(open + "```java\n".length(), close + 1);
  }

  /** Surefire hands the forked JVM a manifest-only jar; the real test classpath is in this property. */
  private static String testClasspath() {
    String classpath = System.getProperty("surefire.test.class.path");
    return classpath != null && !classpath.isBlank() ? classpath : System.getProperty("java.class.path");
  }

  private static String report(DiagnosticCollector<JavaFileObject> diagnostics) {
    return diagnostics.getDiagnostics().stream()
        .map(d -> d.getKind() + " at line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
        .collect(Collectors.joining("\n", "", "\n"));
  }

  private static String normalized(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
  }
}
