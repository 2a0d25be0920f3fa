package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.step.NonFiniteLoss;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NonFiniteLossTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void nanInTheInputsIsBlamedOnTheDataAndTheParametersStayAsTheyWere() {
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 2, sgd(0.1f), GradientAveraging.mean());
        NDList b = f.batch(8);
        NDArray x = b.get(0).duplicate();
        x.set(new ai.djl.ndarray.index.NDIndex("3"), Float.NaN);
        ai.djl.nn.Block before = f.initialize(LeNet.block(), t.getNet());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.trainStep(x, b.get(1)));
        assertTrue(e.getMessage().startsWith("The training loss is NaN at step 1 (epoch 1)"), e.getMessage());
        assertTrue(e.getMessage().contains("the input batch (images and labels) holds 784 NaN or infinite values of 6280"),
                e.getMessage());
        assertFalse(e.getMessage().contains("learning rate"), e.getMessage());
        assertTrue(TrainerFixture.maxDifference(before, t.getNet()) == 0f, "the failed step changed the parameters");
    }

    @Test
    void aNanFromFiniteNumbersBeforeAnyUpdateLeavesOnlyThePlatform() {
        NonFiniteLoss.Facts facts = new NonFiniteLoss.Facts(0, 6280, 1.0, 0, 44426, 0.41, 0.41, 80, 0, 0);
        String m = NonFiniteLoss.message(Double.NaN, "step 1 (epoch 1)", "step", facts);
        assertTrue(m.contains("the inputs are finite (largest |x| 1); the parameters are finite (largest |w| 0.41, "
                + "0.41 before the first update); the network's output holds 80 NaN or infinite values."), m);
        assertTrue(m.contains("No update had been made, so the learning rate played no part"), m);
        assertTrue(m.contains("CPU check: "), m);
        assertTrue(m.contains("scripts/cpu-check.sh"), m);
    }

    @Test
    void aNanAfterUpdatesNamesTheLearningRateAndThePlatformAndParametersAlreadyNanNameTheUpdates() {
        NonFiniteLoss.Facts later = new NonFiniteLoss.Facts(0, 6280, 1.0, 0, 44426, 37.5, 0.41, 0, 12.0, 12);
        String m = NonFiniteLoss.message(Double.POSITIVE_INFINITY, "round 13 (epoch 2)", "round", later);
        assertTrue(m.startsWith("The training loss is Infinity at round 13 (epoch 2); the parameters were left as they "
                + "were before this round."), m);
        assertTrue(m.contains("After 12 update(s) that gave finite losses, what is left is a learning rate too high"), m);
        assertTrue(m.contains("this platform's arithmetic"), m);
        NonFiniteLoss.Facts diverged = new NonFiniteLoss.Facts(0, 6280, 1.0, 4000, 44426, 3.0, Double.NaN, 80, 0, 1);
        String d = NonFiniteLoss.message(Double.NaN, "step 2 (epoch 1)", "step", diverged);
        assertTrue(d.contains("4000 of the 44426 parameters are already NaN or infinite, after 1 update(s)"), d);
        assertFalse(d.contains("platform"), d);
    }
}
