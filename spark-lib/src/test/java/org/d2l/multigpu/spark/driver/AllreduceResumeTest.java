package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A ring-allreduce run resumed from the driver's checkpoint in a new trainer (other initial weights) ends
 * with the parameters and history of a run that was never broken, bit for bit; a checkpoint of other data
 * is refused with what differs.
 */
class AllreduceResumeTest {

    private static JavaSparkContext sc;

    @TempDir
    Path dir;

    @BeforeAll
    static void startSpark() {
        sc = LocalSpark.start("AllreduceResumeTest");
    }

    @AfterAll
    static void stopSpark() {
        sc.stop();
    }

    private static AllreduceTrainer trainer(int seed, Path where) {
        return trainer(seed, where, null);
    }

    private static AllreduceTrainer trainer(int seed, Path where, Compressor compressor) {
        Djl.engine().setRandomSeed(seed);
        return AllreduceTrainer.builder(Models.LENET).setPartitions(2).optOptimizer(OptimizerFactory.sgd(0.05f, 0.9f))
                .optCompression(compressor).optContext(sc).optCheckpoints(where).build();
    }

    private static List<EpochMetrics> fit(AllreduceTrainer t, int batches, int epochs, EpochListener... listeners) {
        try (SplitData data = t.distribute(SyntheticData.minibatches(batches, 8, 11))) {
            return t.fit(data, null, epochs, listeners);
        }
    }

    @Test
    void aResumedAllreduceRunEndsWithTheUnbrokenRunsParametersAndHistory() {
        try (AllreduceTrainer a = trainer(7, dir.resolve("a"))) {
            List<EpochMetrics> expected = fit(a, 6, 3);
            try (AllreduceTrainer b1 = trainer(7, dir.resolve("b"))) {
                fit(b1, 6, 1);
            }
            List<String> notes = new ArrayList<>();
            try (AllreduceTrainer b2 = trainer(8, dir.resolve("b"))) {
                List<EpochMetrics> resumed = fit(b2, 6, 3, new EpochListener() {
                    @Override
                    public void onEpoch(EpochMetrics metrics) {}

                    @Override
                    public void onCheckpointNote(String message) {
                        notes.add(message);
                    }
                });
                assertEquals(expected.size(), resumed.size());
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i).trainLoss(), resumed.get(i).trainLoss(), 0, "epoch " + (i + 1));
                    assertEquals(expected.get(i).syncBytes(), resumed.get(i).syncBytes(), "epoch " + (i + 1));
                }
                assertEquals(a.getHistory().size(), b2.getHistory().size());
                assertEquals(0, ParameterValues.of(a.getNet()).maxAbsDifference(ParameterValues.of(b2.getNet())));
                assertEquals(2, b2.getEpochLog().size(), "the resumed trainer ran epochs 2 and 3 only");
                assertTrue(notes.size() == 1 && notes.get(0).contains("epoch-0001"), notes.toString());
            }
        }
    }

    @Test
    void aResumedRunWithThresholdEncodingCarriesEveryRanksResidualAndThresholdAndEndsAsTheUnbrokenRun() {
        try (AllreduceTrainer a = trainer(7, dir.resolve("d"), Compressor.threshold(1e-3, true))) {
            fit(a, 6, 3);
            try (AllreduceTrainer b1 = trainer(7, dir.resolve("e"), Compressor.threshold(1e-3, true))) {
                fit(b1, 6, 1);
            }
            try (AllreduceTrainer b2 = trainer(8, dir.resolve("e"), Compressor.threshold(1e-3, true))) {
                fit(b2, 6, 3);
                assertEquals(0, ParameterValues.of(a.getNet()).maxAbsDifference(ParameterValues.of(b2.getNet())));
                assertEquals(2, b2.getEpochLog().size(), "the resumed trainer ran epochs 2 and 3 only");
            }
            try (AllreduceTrainer other = trainer(7, dir.resolve("e"), Compressor.oneBit(true))) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> fit(other, 6, 4));
                assertTrue(e.getMessage().contains("compression"), e.getMessage());
            }
        }
    }

    @Test
    void aCheckpointOfOtherTrainingDataIsRefusedWithWhatDiffers() {
        try (AllreduceTrainer first = trainer(7, dir.resolve("c"))) {
            fit(first, 6, 1);
        }
        try (AllreduceTrainer other = trainer(7, dir.resolve("c"))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fit(other, 4, 2));
            assertTrue(e.getMessage().contains("training examples: 48 in the checkpoint, 32 in this run"), e.getMessage());
        }
    }
}
