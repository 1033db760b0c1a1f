package dev.leasehold.model.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.leasehold.testkit.lease.BatchMachine;
import dev.leasehold.testkit.lease.BatchWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's batches of several leases (BatchMachine) against the fixed adapter on the
 * simulated gateway: three resources, each lease of a batch judged against its own resource's twin,
 * every invariant after every lease and step. The same run must have produced batches of several
 * leases with each fault, and one whose leases were answered differently; its statistics go to
 * {@code target/model-stats-batches.md}.
 */
class BatchPropertiesUnitTests {
  /** Fixed, not {@code -Dmodel.chains}: the coverage check needs this many chains to see every kind of batch. */
  private static final int CHAINS = 400;
  private static final int MAX_LENGTH = 40;

  @Test
  void everyLeaseOfEveryBatchAgreesWithItsResourcesTwin() throws IOException {
    BatchMachine machine = new BatchMachine(WorldConfig.simulated(PortFactory.FIXED));
    PropertyRunner<BatchWorld> runner = new PropertyRunner<>(machine);
    PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(ModelSettings.seed() + 20, CHAINS, MAX_LENGTH));
    report.failure().ifPresent(f -> ChainFile.write(ModelSettings.target().resolve("model-failures/batches.chain"),
        f.chainSeed(), runner.renderSteps(f.shrunk()), f.violation().getMessage()));
    assertFalse(report.failure().isPresent(), () -> report.failure().get().rendered());
    String md = "# Model-test statistics: batches of several leases (simulated gateway, fixed adapter)\n\n"
        + report.stats().markdown("three resources, one watchdog", machine.expectedOutcomes());
    System.out.println(md);
    Files.createDirectories(ModelSettings.target());
    Files.writeString(ModelSettings.target().resolve("model-stats-batches.md"), md);
    assertEquals(List.of(), report.stats().unseen(machine.expectedOutcomes()), "kinds of batch never seen");
  }
}
