package dev.leasehold.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.docs.MarkdownDocs.Link;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the repository's pages resolves: the file or folder exists, and an anchor
 * is one of the target page's headings (GitHub's anchors). Links to other sites are not followed.
 */
class DocLinksUnitTests {
  @Test
  void everyRelativeLink_resolves() throws IOException {
    List<Path> pages = new ArrayList<>();
    for (String name : List.of("README.md", "CHANGELOG.md")) {
      pages.add(MarkdownDocs.page(name));
    }
    try (Stream<Path> root = Files.list(MarkdownDocs.ROOT); Stream<Path> docs = Files.list(MarkdownDocs.page("docs"))) {
      // The module READMEs (spec, chaos, bench, ...) and the docs pages.
      root.map(dir -> dir.resolve("README.md")).filter(Files::isRegularFile).map(Path::normalize).forEach(pages::add);
      docs.filter(p -> p.toString().endsWith(".md")).map(Path::normalize).forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      for (Link link : MarkdownDocs.links(page)) {
        if (!link.target().matches("[a-z][a-z0-9+.-]*:.*")) {
          checked++;
          String problem = problem(link);
          if (problem != null) {
            broken.add(link.page() + ":" + link.line() + ": " + link.target() + ": " + problem);
          }
        }
      }
    }
    assertEquals("", broken.stream().collect(Collectors.joining("\n")), "broken links");
    assertTrue(checked > 20, "the pages' relative links were found (" + checked + ")");
  }

  /** Why the link does not resolve, or null when it does. */
  private static String problem(Link link) {
    int hash = link.target().indexOf('#');
    String file = hash < 0 ? link.target() : link.target().substring(0, hash);
    Path target = file.isEmpty() ? link.page() : link.page().getParent().resolve(file).normalize();
    if (!Files.exists(target)) {
      return "no such file";
    }
    if (hash < 0) {
      return null;
    }
    String anchor = link.target().substring(hash + 1);
    if (!target.toString().endsWith(".md")) {
      return "an anchor into a page that is not markdown";
    }
    List<String> anchors = MarkdownDocs.anchors(target);
    return anchors.contains(anchor) ? null : "no heading with that anchor in " + target + "; it has " + anchors;
  }
}
