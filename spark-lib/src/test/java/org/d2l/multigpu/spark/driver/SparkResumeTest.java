package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.earlystopping.EarlyStoppingConfiguration;
import org.d2l.multigpu.earlystopping.EarlyStoppingParallelTrainer;
import org.d2l.multigpu.earlystopping.EarlyStoppingResult;
import org.d2l.multigpu.earlystopping.ScoreMonitor;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A Spark run resumed from the driver's checkpoint in a new trainer (other initial weights) ends with the
 * driver's parameters and history of a run that was never broken, bit for bit (two partitions: their sum
 * does not depend on which task finishes first).
 */
class SparkResumeTest {

    private static JavaSparkContext sc;

    @TempDir
    Path dir;

    @BeforeAll
    static void startSpark() {
        sc = LocalSpark.start("SparkResumeTest");
    }

    @AfterAll
    static void stopSpark() {
        sc.stop();
    }

    private static SparkTrainer trainer(long seed, Path where) {
        Djl.engine().setRandomSeed((int) seed);
        return SparkTrainer.builder(Models.LENET).setPartitions(2).optAveragingFrequency(2)
                .optOptimizer(OptimizerFactory.sgd(0.05f, 0.9f)).optContext(sc).optCheckpoints(where).build();
    }

    private static List<EpochMetrics> fit(SparkTrainer t, int epochs, EpochListener... listeners) {
        return t.fit(t.distribute(SyntheticData.minibatches(8, 8, 11)), null, epochs, listeners);
    }

    private static void assertSameRun(List<EpochMetrics> a, List<EpochMetrics> b) {
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.get(i).epoch(), b.get(i).epoch());
            assertEquals(a.get(i).trainLoss(), b.get(i).trainLoss(), 0, "epoch " + (i + 1));
            assertEquals(a.get(i).trainAccuracy(), b.get(i).trainAccuracy(), 0, "epoch " + (i + 1));
            assertEquals(a.get(i).syncBytes(), b.get(i).syncBytes(), "epoch " + (i + 1));
        }
    }

    @Test
    void aResumedSparkRunEndsWithTheUnbrokenRunsParametersAndHistory() {
        try (SparkTrainer a = trainer(7, dir.resolve("a"))) {
            List<EpochMetrics> expected = fit(a, 3);
            try (SparkTrainer b1 = trainer(7, dir.resolve("b"))) {
                fit(b1, 1);
            }
            List<String> notes = new ArrayList<>();
            try (SparkTrainer b2 = trainer(8, dir.resolve("b"))) {
                List<EpochMetrics> resumed = fit(b2, 3, new EpochListener() {
                    @Override
                    public void onEpoch(EpochMetrics metrics) {}

                    @Override
                    public void onCheckpointNote(String message) {
                        notes.add(message);
                    }
                });
                assertSameRun(expected, resumed);
                assertSameRun(a.getHistory(), b2.getHistory());
                assertEquals(0, ParameterValues.of(a.getNet()).maxAbsDifference(ParameterValues.of(b2.getNet())));
                assertEquals(a.getRounds().size(), b2.getRounds().get(b2.getRounds().size() - 1).round());
                assertTrue(notes.size() == 1 && notes.get(0).contains("epoch-0001"), notes.toString());
            }
        }
    }

    @Test
    void aResumedSparkEarlyStoppingRunStopsAsTheUnbrokenOne() {
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMaxEpochs(5).optEpochPatience(1)
                .optMonitor(ScoreMonitor.higherIsBetter("minus loss", (t, m) -> -Math.floor(m.trainLoss() * 10))).build();
        try (SparkTrainer a = trainer(7, dir.resolve("a"))) {
            ShardedData data = a.distribute(SyntheticData.minibatches(8, 8, 11));
            EarlyStoppingResult expected = new EarlyStoppingParallelTrainer(config, a.epochs(data, null)).fit();
            assertTrue(expected.totalEpochs() >= 2, expected.summary());
            try (SparkTrainer b1 = trainer(7, dir.resolve("b"))) {
                EpochListener die = new EpochListener() {
                    @Override
                    public void onEpochStart(int epoch, long examples) {
                        if (epoch == 2) {
                            throw new IllegalStateException("the kernel died");
                        }
                    }

                    @Override
                    public void onEpoch(EpochMetrics metrics) {}
                };
                assertThrows(IllegalStateException.class,
                        () -> new EarlyStoppingParallelTrainer(config, b1.epochs(b1.distribute(
                                SyntheticData.minibatches(8, 8, 11)), null)).fit(die));
            }
            try (SparkTrainer b2 = trainer(8, dir.resolve("b"))) {
                EarlyStoppingResult resumed = new EarlyStoppingParallelTrainer(config,
                        b2.epochs(b2.distribute(SyntheticData.minibatches(8, 8, 11)), null)).fit();
                assertEquals(expected.summary(), resumed.summary());
                assertEquals(0, ParameterValues.of(a.getNet()).maxAbsDifference(ParameterValues.of(b2.getNet())));
            }
        }
    }
}
