package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.StepHook;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * More ranks than two on real executors: {@code local-cluster[4,1,1024]} (four executor JVMs on this
 * machine's cores, enough for a correctness test), where rings of 3 and 4 ranks must compute bit for bit
 * what {@link RingReference} computes: the same steps, summed in the ring's order.
 */
class SparkRingRanksTest {

    @TempDir
    static Path sparkHome;

    private static JavaSparkContext sc;

    @BeforeAll
    static void startCluster() throws IOException {
        sc = LocalCluster.start("SparkRingRanksTest", 4, sparkHome);
    }

    @AfterAll
    static void stopCluster() {
        LocalCluster.stop(sc);
    }

    @Test
    void threeExecutorJvmsInARingEqualTheRingsOrderInProcessBitForBit() {
        assertRanks(3);
    }

    @Test
    void fourExecutorJvmsInARingEqualTheRingsOrderInProcessBitForBit() {
        assertRanks(4);
    }

    private static void assertRanks(int k) {
        // 5 global batches of 14: shards of 5, 5, 4 (k = 3) and 4, 4, 3, 3 (k = 4); small buckets cut the gradient
        List<AllreduceEpoch> log = AllreduceTrainerTest.assertBitForBitAsInProcess(sc, k, SyntheticData.minibatches(5, 14, 31),
                OptimizerFactory.sgd(0.1f, 0.9f), 40_000, 2, StepHook.none());
        assertEquals(k, log.get(0).k());
        assertTrue(log.get(0).joinSeconds() > 0, "the ranks joined the ring in the fit's first epoch");
        assertEquals(0, log.get(1).joinSeconds(), "and did not join again in its second: one stage per fit");
    }
}
