package org.d2l.multigpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.d2l.multigpu.bench.harness.Cli;
import org.junit.jupiter.api.Test;

class SparkBenchOptionsTest {

    @Test
    void theDefaultsAreTwoWorkersOfBatch128OnTheFirst12800ExamplesOnALocalCluster() {
        SparkBench.Options o = Cli.parse(new SparkBench.Options());
        assertEquals(List.of(2, 128, 12800, 2, 3), List.of(o.workers, o.batch, o.limit, o.epochs, o.rounds));
        assertEquals("local-cluster", o.master);
        assertNull(o.child);
    }

    @Test
    void aLaterValueOfAnOptionWins() {
        SparkBench.Options o = Cli.parse(new SparkBench.Options(), "--master", "local-cluster", "--rounds", "5",
                "--master", "local");
        assertEquals("local", o.master);
        assertEquals(5, o.rounds);
    }

    @Test
    void aBadOptionIsNamedWithTheUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new SparkBench.Options(), "--workers", "0"));
        assertTrue(e.getMessage().startsWith("--workers must be at least 1, got 0"), e.getMessage());
        assertTrue(e.getMessage().contains("Usage: SparkBench"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cli.parse(new SparkBench.Options(), "--worker", "3"));
        assertTrue(e.getMessage().startsWith("Unknown option") && e.getMessage().contains("'--worker'"), e.getMessage());
    }

    @Test
    void anUnknownMasterOrChildConfigurationIsRefusedWithTheValuesAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new SparkBench.Options(), "--master", "yarn"));
        assertTrue(e.getMessage().startsWith("--master: unknown value 'yarn'; use one of local-cluster, local"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cli.parse(new SparkBench.Options(), "--child", "spark-f3"));
        assertTrue(e.getMessage().startsWith("--child: unknown value 'spark-f3'"), e.getMessage());
    }

    @Test
    void theChildOptionIsHiddenFromTheUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new SparkBench.Options(), "--epochs", "0"));
        assertTrue(e.getMessage().contains("--master"), e.getMessage());
        assertTrue(!e.getMessage().contains("--child"), e.getMessage());
    }

    @Test
    void configurationsAreChosenWithTheirInProcessBaselineOrRefusedNamingIt() {
        SparkBench.Options o = Cli.parse(new SparkBench.Options(), "--configs", "inproc-grad,allreduce,allreduce-onebit");
        assertEquals(List.of("inproc-grad", "allreduce", "allreduce-onebit"), o.configs);
        assertEquals("inproc-grad", SparkBench.baseline("allreduce-powersgd"));
        assertEquals("inproc-grad-full", SparkBench.baseline("allreduce-full"));
        assertEquals("inproc-f10", SparkBench.baseline("spark-f10"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new SparkBench.Options(), "--configs", "allreduce-onebit"));
        assertTrue(e.getMessage().startsWith("--configs allreduce-onebit is measured against inproc-grad: add it"),
                e.getMessage());
    }
}
