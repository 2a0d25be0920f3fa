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
 * The job on Spark's {@code local-cluster[2,1,1024]} ({@link LocalCluster}: two executors as separate JVMs,
 * as on a real cluster), for both Spark trainers.
 */
class SparkLocalClusterTest {

    @TempDir
    static Path sparkHome;

    private static JavaSparkContext sc;

    @BeforeAll
    static void startCluster() throws IOException {
        sc = LocalCluster.start("SparkLocalClusterTest", 2, sparkHome);
    }

    @AfterAll
    static void stopCluster() {
        LocalCluster.stop(sc);
    }

    @Test
    void twoExecutorJvmsGiveTheSameParametersAsTheInProcessTrainer() {
        SparkTrainerTest.assertSameAsInProcess(sc, 2, 2, 8, OptimizerFactory.sgd(0.1f, 0.9f));
        assertEquals(2, sc.sc().getExecutorMemoryStatus().size() - 1, "two executors besides the driver");
        assertTrue(sc.master().startsWith("local-cluster"));
    }

    @Test
    void twoExecutorJvmsRingAllreducingOverTcpEqualTheInProcessTrainerBitForBit() {
        List<AllreduceEpoch> log = AllreduceTrainerTest.assertBitForBitAsInProcess(sc, SyntheticData.minibatches(6, 16, 21),
                OptimizerFactory.sgd(0.1f, 0.9f), 100_000, 2, StepHook.none());
        AllreduceEpoch e = log.get(1);
        for (int r = 0; r < 2; r++) {
            assertTrue(e.bytesSentPerStep(r) > 0 && Math.abs(e.bytesSentPerStep(r) - e.ringBytesPerStep()) <= 4.0
                    * e.results().get(r).buckets(), "rank " + r + " sent " + e.bytesSentPerStep(r) + " bytes a step");
        }
    }

    @Test
    void anExecutorKilledInTheMiddleOfAnEpochIsRetriedFromTheLastCompleteEpochAndGivesTheSameParameters() {
        // Rank 1's executor JVM dies before its second step of epoch 2, on the first attempt only: the
        // worker starts a new executor and the driver runs the epoch's stage again.
        StepHook killExecutor = (rank, epoch, step, attempt) -> {
            if (rank == 1 && epoch == 2 && step == 1 && attempt == 0) {
                Runtime.getRuntime().halt(1);
            }
        };
        List<AllreduceEpoch> log = AllreduceTrainerTest.assertBitForBitAsInProcess(sc, SyntheticData.minibatches(4, 16, 8),
                OptimizerFactory.sgd(0.1f), 25L << 20, 2, killExecutor);
        assertEquals(2, log.get(1).attempts(), log.get(1).failures().toString());
        assertEquals(2, sc.sc().getExecutorMemoryStatus().size() - 1, "a new executor took the lost one's place");
    }
}
