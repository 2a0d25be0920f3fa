package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;
import org.d2l.multigpu.parallel.DataParallelTrainer;

class TimeEstimateTest {

    @Test
    void estimateScalesWithEpochsAndLeavesTheParametersAsTheyWere() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            ArrayDataset train = new ArrayDataset.Builder().setData(m.randomUniform(0f, 1f, new Shape(64, 1, 28, 28)))
                    .optLabels(m.randomInteger(0, 10, new Shape(64), ai.djl.ndarray.types.DataType.FLOAT32))
                    .setSampling(16, false).build();
            try (DataParallelTrainer t = DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(2))
                    .optInputShape(new Shape(1, 1, 28, 28)).optLearningRate(0.1f).optProgress(false).build()) {
                NDArray before = t.getNet().getParameters().valueAt(0).getArray().duplicate();
                TimeEstimate e = TimeEstimate.of(t, train, train, 3, 2);
                assertTrue(before.contentEquals(t.getNet().getParameters().valueAt(0).getArray()), "parameters changed");
                assertTrue(e.secondsPerExample() > 0);
                assertEquals(3 * e.secondsPerExample() * (64 + TimeEstimate.TEST_COST * 64), e.seconds(), 1e-9);
                assertTrue(e.toString().endsWith("For a shorter run lower MAX_EPOCH."), e.toString());
            }
        }
    }

    @Test
    void aLongRunSuggestsATenthOfTheDataWithItsTime() {
        TimeEstimate e = new TimeEstimate(0.03, 60000, 10000, 10);
        assertEquals(3.0 * 10 * (60000 + TimeEstimate.TEST_COST * 10000) / 100, e.seconds(), 1e-6);
        assertTrue(e.toString().startsWith("Estimated time: about 5.4 h for 10 epoch(s)"), e.toString());
        assertTrue(e.toString().contains("DATASET_LIMIT=6000 (about 44 min)"), e.toString());
    }

    @Test
    void aRunLongerThanTheSessionIsWarnedAboutBeforeTheShorterSettings() {
        TimeEstimate e = new TimeEstimate(0.03, 60000, 10000, 10);
        String text = e.describe(java.util.OptionalLong.of(3600));
        assertTrue(text.contains("(30.0 ms per training image, timed here). Warning: that is longer than a session "
                + "on this machine lasts (about 60 min, D2L_SESSION_LIMIT=3600 s): the session would end before the run "
                + "does."), text);
        assertTrue(text.indexOf("Warning") < text.indexOf("For a shorter run"), text);
    }

    @Test
    void aRunThatFitsTheSessionOrNoSessionLimitHasNoWarning() {
        TimeEstimate e = new TimeEstimate(0.001, 1000, 1000, 2);
        assertTrue(!e.describe(java.util.OptionalLong.of(3600)).contains("Warning"), e.describe(java.util.OptionalLong.of(3600)));
        TimeEstimate longRun = new TimeEstimate(0.03, 60000, 10000, 10);
        assertTrue(!longRun.describe(java.util.OptionalLong.empty()).contains("Warning"));
    }

    @Test
    void humanTimesUseSecondsMinutesOrHours() {
        assertEquals("about 30 s", TimeEstimate.human(30));
        assertEquals("about 20 min", TimeEstimate.human(1200));
        assertEquals("about 9.0 h", TimeEstimate.human(9 * 3600));
    }
}
