package dev.leasehold.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reads BREAK lines, picks the one for a configuration, and derives the configuration that checks one property. */
class PropertyBreakersUnitTests {
  private static final String MODULE = """
      (* BREAK NoInheritance: SameValue <- OwnerOnlySameValue                     *)
      (* BREAK FencedEffects IN MCLeaseFencing: NextToken <- CounterOnlyToken     *)
      (* BREAK FencedEffects: Acked <- NoWait, Refuse <- RefuseAfterRunning       *)
      (* BREAK StaleReplyChangesNoHandle WITH TWO THREADS IN MCLeaseThreads: RenewReplyIgnored <- StaleRenewHeeded *)
      """;

  private static final String CFG = """
      \\* The protocol.
      \\* Expected: PASS
      CONSTANTS
          a1 = a1
          Ttl <- MCTtl
      INIT Init
      NEXT Next
      INVARIANT
          TypeOK
          NoInheritance
      PROPERTY
          CertaintyIsHonest
      """;

  @Test
  void breakLinesGiveThePropertyTheConfigurationsAndTheOverrides() {
    List<PropertyBreakers.Breaker> b = PropertyBreakers.parse(MODULE);
    assertEquals(List.of(
        new PropertyBreakers.Breaker("NoInheritance", Set.of(), List.of("SameValue <- OwnerOnlySameValue"), false),
        new PropertyBreakers.Breaker("FencedEffects", Set.of("MCLeaseFencing"), List.of("NextToken <- CounterOnlyToken"), false),
        new PropertyBreakers.Breaker("FencedEffects", Set.of(), List.of("Acked <- NoWait", "Refuse <- RefuseAfterRunning"), false),
        new PropertyBreakers.Breaker("StaleReplyChangesNoHandle", Set.of("MCLeaseThreads"),
            List.of("RenewReplyIgnored <- StaleRenewHeeded"), true)), b);
  }

  @Test
  void oneThreadIsTriedFirst_unlessTheDefectNeedsTwo() {
    List<PropertyBreakers.Breaker> b = PropertyBreakers.parse(MODULE);
    assertEquals(List.of(true, false), b.get(0).tries());
    assertEquals(List.of(false), b.get(3).tries());
  }

  @Test
  void aLineNamingTheConfigurationComesBeforeTheGeneralOne() {
    List<PropertyBreakers.Breaker> b = PropertyBreakers.parse(MODULE);
    assertEquals(List.of("NextToken <- CounterOnlyToken"),
        PropertyBreakers.find(b, "FencedEffects", "MCLeaseFencing").orElseThrow().overrides());
    assertEquals(List.of("Acked <- NoWait", "Refuse <- RefuseAfterRunning"),
        PropertyBreakers.find(b, "FencedEffects", "MCLeaseReplicaAck").orElseThrow().overrides());
    assertEquals(Optional.empty(), PropertyBreakers.find(b, "MutualExclusion", "MCLease"));
  }

  @Test
  void theDerivedConfigurationChecksOnlyThePropertyWithTheOverrides() {
    PropertyBreakers.Breaker b = new PropertyBreakers.Breaker("CertaintyIsHonest", Set.of(), List.of("Refuse <- RefuseAfterRunning"), false);
    String derived = PropertyBreakers.derivedCfg(CFG, "CertaintyIsHonest", b, false);
    assertEquals("""
        \\* Refuse <- RefuseAfterRunning breaks CertaintyIsHonest
        \\* Expected: FAIL:CertaintyIsHonest
        CONSTANTS
            a1 = a1
            Ttl <- MCTtl
            Refuse <- RefuseAfterRunning
        INIT Init
        NEXT Next
        PROPERTY
            CertaintyIsHonest
        """, derived);
    assertTrue(PropertyBreakers.derivedCfg(CFG, "NoInheritance", b, false).endsWith("INVARIANT\n    NoInheritance\n"));
    assertThrows(IllegalArgumentException.class, () -> PropertyBreakers.derivedCfg(CFG, "MutualExclusion", b, false));
  }

  @Test
  void sectionsAfterThePropertiesAndInlinePropertiesAreKept() {
    String cfg = """
        \\* A configuration.
        \\* Expected: PASS
        CONSTANTS
            a1 = a1
        INIT Init
        INVARIANT TypeOK
        PROPERTIES
            CertaintyIsHonest
        CONSTRAINT StateConstraint
        """;
    PropertyBreakers.Breaker b = new PropertyBreakers.Breaker("TypeOK", Set.of(), List.of("Refuse <- RefuseAfterRunning"), false);
    String derived = PropertyBreakers.derivedCfg(cfg, "TypeOK", b, false);
    assertTrue(derived.contains("CONSTRAINT StateConstraint\n"), derived);
    assertTrue(derived.endsWith("INVARIANT\n    TypeOK\n"), derived);
    assertTrue(PropertyBreakers.derivedCfg(cfg, "CertaintyIsHonest", b, false).endsWith("PROPERTY\n    CertaintyIsHonest\n"));
  }

  @Test
  void withOneThreadOnlyTheLanesAreRebound() {
    String cfg = """
        \\* A configuration.
        \\* Expected: PASS
        CONSTANTS
            Lane <- MCLane
            Ttl <- MCTtl
        INIT Init
        INVARIANT
            NoInheritance
        """;
    PropertyBreakers.Breaker b = new PropertyBreakers.Breaker("NoInheritance", Set.of(), List.of("SameValue <- OwnerOnlySameValue"), false);
    String all = PropertyBreakers.derivedCfg(cfg, "NoInheritance", b, false);
    String one = PropertyBreakers.derivedCfg(cfg, "NoInheritance", b, true);
    assertTrue(all.contains("    Lane <- MCLane\n"), all);
    assertEquals(all.lines().skip(1).toList().toString().replace("Lane <- MCLane", "Lane <- OneLane"),
        one.lines().skip(1).toList().toString());
    assertTrue(one.startsWith("\\* SameValue <- OwnerOnlySameValue breaks NoInheritance, with one thread\n"), one);
    assertThrows(IllegalArgumentException.class, () -> PropertyBreakers.derivedCfg(CFG, "NoInheritance", b, true));
  }
}
