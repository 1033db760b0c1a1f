package dev.leasehold.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

/**
 * Holds the repository's markdown pages to the code: the fenced code blocks of a page (each with
 * the heading it stands under), its headings and GitHub anchors, its relative links and tables; a
 * {@code java} block compiled with javax.tools against the running module's test classpath; and the
 * excerpt of a test source that a block must show. Test code only: impl's test jar carries it to
 * the tests of jdbc, the Spring Boot starter and model-tests.
 *
 * <p>Paths are relative to the repository root; tests run in their module's directory, one below it.
 * This class is stateless and threadsafe.
 */
public final class MarkdownDocs {
  /** The repository root, seen from a module directory (where surefire runs the tests). */
  public static final Path ROOT = Path.of("..");

  /** The lines around the code a page shows; the page must show what lies between them. */
  public static final String EXCERPT_BEGIN = "// docs example: begin";
  public static final String EXCERPT_END = "// docs example: end";

  private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(\\S*)\\s*$");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`\n]*`");
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern PUBLIC_TYPE =
      Pattern.compile("public\\s+(?:final\\s+|abstract\\s+)?(?:class|interface|record|enum)\\s+(\\w+)");
  // A block is a whole compilation unit when it opens (after comments and annotations) with a package,
  // an import or a type; a class member when with a modifier, an annotation or a method head
  // (`Type name(`); else statements, compiled as a method's body.
  private static final Pattern UNIT_START =
      Pattern.compile("(?s)(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|final|abstract|sealed)\\s+)*(?:package|import|class|interface|record|enum)\\s.*");
  private static final Pattern MEMBER_START =
      Pattern.compile("(?s)(?:@|(?:public|protected|private|static|final|abstract|synchronized)\\s|[\\w<>\\[\\],.? ]+?\\s+\\w+\\s*\\().*");

  private MarkdownDocs() {}

  /** A fenced code block: its page, the line of its opening fence, the heading above it (empty before any) and its text. */
  public record Block(Path page, int line, String heading, String language, String code) {
    @Override
    public String toString() {
      return page + ":" + line + " (" + language + " block under \"" + heading + "\")";
    }
  }

  /** A heading outside code blocks: its level (1 to 6) and text as written. */
  public record Heading(int level, String text) {}

  /** An inline link's target as written, e.g. {@code ../README.md#configuration}, and its line. */
  public record Link(Path page, int line, String target) {}

  /** A page of the repository, e.g. {@code docs/guide.md}. */
  public static Path page(String relative) {
    return ROOT.resolve(relative).normalize();
  }

  /** The page's fenced code blocks, in order. */
  public static List<Block> blocks(Path page) {
    List<Block> blocks = new ArrayList<>();
    String heading = "";
    String language = null;
    int opened = 0;
    StringBuilder code = new StringBuilder();
    List<String> lines = read(page).lines().collect(Collectors.toList());
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher fence = FENCE.matcher(line);
      if (language == null && fence.matches()) {
        language = fence.group(1);
        opened = i + 1;
        code.setLength(0);
      } else if (language != null && line.strip().equals("```")) {
        blocks.add(new Block(page, opened, heading, language, code.toString()));
        language = null;
      } else if (language != null) {
        code.append(line).append('\n');
      } else {
        Matcher h = HEADING.matcher(line);
        if (h.matches()) {
          heading = h.group(2);
        }
      }
    }
    int unclosed = opened;
    assertTrue(language == null, () -> page + ":" + unclosed + ": a code block is not closed");
    return blocks;
  }

  /** The {@code java} blocks standing under {@code heading} (its text without the #s). */
  public static List<Block> javaBlocks(Path page, String heading) {
    List<Block> found = blocks(page).stream()
        .filter(b -> b.language().equals("java") && b.heading().equals(heading))
        .collect(Collectors.toList());
    assertTrue(!found.isEmpty(), () -> page + " has no java block under \"" + heading + "\"");
    return found;
  }

  /** The page's text outside fenced code blocks, line for line (a block's lines become empty). */
  public static List<String> prose(Path page) {
    List<String> out = new ArrayList<>();
    boolean inBlock = false;
    for (String line : read(page).lines().collect(Collectors.toList())) {
      boolean fence = FENCE.matcher(line).matches();
      out.add(inBlock || fence ? "" : line);
      if (fence) {
        inBlock = !inBlock;
      }
    }
    return out;
  }

  /** The page's headings, in order. */
  public static List<Heading> headings(Path page) {
    List<Heading> headings = new ArrayList<>();
    for (String line : prose(page)) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        headings.add(new Heading(h.group(1).length(), h.group(2)));
      }
    }
    return headings;
  }

  /**
   * GitHub's anchor for a heading: lower case, punctuation other than '-' and '_' dropped, each
   * space a '-'. A page's second heading of the same text gets "-1" (see {@link #anchors}).
   */
  public static String anchor(String heading) {
    return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
  }

  /** The anchors of the page's headings, in order. */
  public static List<String> anchors(Path page) {
    List<String> anchors = new ArrayList<>();
    for (Heading h : headings(page)) {
      String anchor = anchor(h.text());
      String unique = anchor;
      for (int n = 1; anchors.contains(unique); n++) {
        unique = anchor + "-" + n;
      }
      anchors.add(unique);
    }
    return anchors;
  }

  /** The inline links of the page's prose; code spans and code blocks are not links. */
  public static List<Link> links(Path page) {
    List<Link> links = new ArrayList<>();
    List<String> prose = prose(page);
    for (int i = 0; i < prose.size(); i++) {
      Matcher link = LINK.matcher(INLINE_CODE.matcher(prose.get(i)).replaceAll("code"));
      while (link.find()) {
        links.add(new Link(page, i + 1, link.group(1)));
      }
    }
    return links;
  }

  /** The first table under {@code heading}: its rows after the separator, cells stripped. */
  public static List<List<String>> table(Path page, String heading) {
    List<String> prose = prose(page);
    int start = 0;
    while (start < prose.size() && !isHeading(prose.get(start), heading)) {
      start++;
    }
    assertTrue(start < prose.size(), () -> page + " has no heading \"" + heading + "\"");
    List<List<String>> rows = new ArrayList<>();
    for (int i = start + 1; i < prose.size() && !prose.get(i).startsWith("#"); i++) {
      String line = prose.get(i).strip();
      if (line.startsWith("|")) {
        rows.add(Arrays.stream(line.substring(1, line.length() - 1).split("\\|", -1)).map(String::strip).collect(Collectors.toList()));
      } else if (!rows.isEmpty()) {
        break;
      }
    }
    assertTrue(rows.size() > 2, () -> page + " has no table under \"" + heading + "\"");
    return rows.subList(2, rows.size());
  }

  private static boolean isHeading(String line, String text) {
    Matcher h = HEADING.matcher(line);
    return h.matches() && h.group(2).equals(text);
  }

  /** What a source file shows between {@link #EXCERPT_BEGIN} and {@link #EXCERPT_END}. */
  public static String excerpt(Path source) {
    String text = read(source);
    int begin = text.indexOf(EXCERPT_BEGIN);
    int end = text.indexOf(EXCERPT_END);
    assertTrue(begin >= 0 && end > begin, () -> source + " marks no excerpt with \"" + EXCERPT_BEGIN + "\" and \"" + EXCERPT_END + "\"");
    return text.substring(text.indexOf('\n', begin) + 1, text.lastIndexOf('\n', end) + 1);
  }

  /** The block shows the excerpt of {@code source}, the code a test runs, line for line (indentation aside). */
  public static void assertShows(Block block, Path source) {
    String excerpt = normalized(excerpt(source));
    assertTrue(normalized(block.code()).contains(excerpt),
        () -> block + " does not show the excerpt of " + source + ", which a test runs; the excerpt:\n" + excerpt);
  }

  /**
   * Compiles the block against this module's test classpath with all warnings as errors, and fails
   * with the compiler's diagnostics. Pages leave imports out, so the caller names them; a fragment
   * (members or statements, see {@code MEMBER_START}) is put in a class that also declares {@code members}.
   */
  public static void assertCompiles(Block block, List<String> imports, String members) {
    String code = block.code();
    String opening = code.lines().filter(l -> !l.isBlank() && !l.strip().startsWith("//"))
        .map(String::strip).collect(Collectors.joining("\n"));
    String head = imports.stream().map(i -> "import " + i + ";\n").collect(Collectors.joining());
    String source;
    String name;
    if (UNIT_START.matcher(opening).matches()) {
      Matcher type = PUBLIC_TYPE.matcher(code);
      name = type.find() ? type.group(1) : "DocBlock";
      source = head + code;
    } else {
      name = "DocBlock" + block.line();
      String body = MEMBER_START.matcher(opening).matches() ? code : "void example() throws Exception {\n" + code + "}\n";
      source = head + "class " + name + " {\n" + members + "\n" + body + "}\n";
    }
    String diagnostics = compile(name, source);
    assertEquals("", diagnostics, () -> block + " does not compile:\n" + diagnostics + "--- as compiled:\n" + source);
  }

  /** The compiler's diagnostics for one source file; empty when it compiled. */
  private static String compile(String name, String source) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertNotNull(compiler, "a JDK with javac runs the tests");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      Path classes = Files.createTempDirectory("doc-block");
      files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
      JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return source;
        }
      };
      boolean compiled = compiler.getTask(out, files, diagnostics,
          List.of("-classpath", testClasspath(), "--release", "17", "-proc:none", "-Xlint:all", "-Werror"),
          null, List.of(unit)).call();
      String report = diagnostics.getDiagnostics().stream()
          .map(d -> d.getKind() + " at line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
          .collect(Collectors.joining("\n", "", "\n")) + out;
      return compiled ? "" : report;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Surefire hands the forked JVM a manifest-only jar; the real test classpath is in this property. */
  private static String testClasspath() {
    String classpath = System.getProperty("surefire.test.class.path");
    return classpath != null && !classpath.isBlank() ? classpath : System.getProperty("java.class.path");
  }

  /** Lines stripped of indentation, blank lines dropped. */
  public static String normalized(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
  }

  public static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
