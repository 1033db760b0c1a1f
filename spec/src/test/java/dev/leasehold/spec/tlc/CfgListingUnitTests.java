package dev.leasehold.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CfgListingUnitTests {
  @Test
  void readsEachSectionToTheNextLineThatIsNeitherIndentedNorEmpty() {
    List<String> cfg = List.of(
        "\\* Expected: PASS",                 // 0
        "INIT Init",                          // 1
        "INVARIANT",                          // 2
        "    TypeOK",                         // 3
        "",                                   // 4
        "    NoInheritance",                  // 5
        "PROPERTIES StateOutcomeAgreement",   // 6
        "    \\* a comment inside",           // 7
        "    LossIsReported",                 // 8
        "SYMMETRY MCSymmetry",                // 9
        "INVARIANTS FencedEffects");          // 10
    CfgListing listing = CfgListing.of(cfg);
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("TypeOK", "INVARIANT");
    expected.put("NoInheritance", "INVARIANT");
    expected.put("StateOutcomeAgreement", "PROPERTY");
    expected.put("LossIsReported", "PROPERTY");
    expected.put("FencedEffects", "INVARIANT");
    assertEquals(expected, listing.keywords());
    assertEquals(List.copyOf(expected.keySet()), listing.names());
    assertEquals(Set.of(2, 3, 4, 5, 6, 7, 8, 10), listing.lines());
  }
}
