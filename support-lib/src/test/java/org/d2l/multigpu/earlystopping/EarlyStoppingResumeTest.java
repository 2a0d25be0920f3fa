package org.d2l.multigpu.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.ResumeFixture;
import org.d2l.multigpu.parallel.WithResumeFixture;
import org.junit.jupiter.api.Test;

/** An early-stopping run resumed from a checkpoint stops where the unbroken run stops, with its best model. */
class EarlyStoppingResumeTest extends WithResumeFixture {

    /** Lower test accuracy is "better": the first epoch stays the best, and patience 2 stops the run after epoch 3. */
    private static EarlyStoppingConfiguration config() {
        return EarlyStoppingConfiguration.builder().optMaxEpochs(6).optEpochPatience(2)
                .optMonitor(ScoreMonitor.lowerIsBetter("test accuracy, reversed", (t, m) -> m.testAccuracy())).build();
    }

    private DataParallelTrainer trainer(long seed, Path where) {
        return r.trainer(2, seed, where, b -> b.optLearningRate(0.3f).optShuffleSeed(5));
    }

    private EarlyStoppingParallelTrainer stopping(DataParallelTrainer t) {
        return new EarlyStoppingParallelTrainer(config(), t, r.train, r.test);
    }

    /** A listener that fails when epoch {@code at} starts, as a dead kernel ends a run. */
    private static EpochListener dieAt(int at) {
        return new EpochListener() {
            @Override
            public void onEpochStart(int epoch, long examples) {
                if (epoch == at) {
                    throw new IllegalStateException("the kernel died");
                }
            }

            @Override
            public void onEpoch(EpochMetrics metrics) {}
        };
    }

    @Test
    void resumedEarlyStoppingStopsAsTheUnbrokenRunWithTheSameBestModel() {
        DataParallelTrainer a = trainer(7, dir.resolve("a"));
        EarlyStoppingResult expected = stopping(a).fit();
        assertTrue(expected.totalEpochs() > 2 && expected.bestEpoch() < expected.totalEpochs(),
                "the run must stop after epoch 2 with an earlier best: " + expected.summary());
        DataParallelTrainer b1 = trainer(7, dir.resolve("b"));
        assertThrows(IllegalStateException.class, () -> stopping(b1).fit(dieAt(3)));
        DataParallelTrainer b2 = trainer(8, dir.resolve("b"));
        EarlyStoppingResult resumed = stopping(b2).fit(r.notes());
        assertEquals(expected.summary(), resumed.summary());
        assertEquals(expected.scores(), resumed.scores());
        ResumeFixture.assertSameRun(expected.history(), resumed.history());
        ResumeFixture.assertSameParameters(a, b2); // the best epoch's model, restored in both
        assertEquals(1, r.notes.size(), r.notes.toString());
    }

    @Test
    void aRunThatHadStoppedIsNotTrainedAgain() {
        DataParallelTrainer a = trainer(7, dir.resolve("a"));
        EarlyStoppingResult expected = stopping(a).fit();
        DataParallelTrainer again = trainer(8, dir.resolve("a"));
        AtomicInteger started = new AtomicInteger();
        EarlyStoppingResult resumed = stopping(again).fit(new EpochListener() {
            @Override
            public void onEpochStart(int epoch, long examples) {
                started.incrementAndGet();
            }

            @Override
            public void onEpoch(EpochMetrics metrics) {}
        });
        assertEquals(0, started.get(), "no epoch trains again");
        assertEquals(expected.summary(), resumed.summary());
        ResumeFixture.assertSameParameters(a, again);
    }
}
