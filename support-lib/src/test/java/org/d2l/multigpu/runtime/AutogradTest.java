package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class AutogradTest extends WithCpuManager {

    /** x * x recorded and back-propagated with gradient g: x's gradient is 2 x g, exact in float32 for these values. */
    private float[] squareGradient(NDManager m, float[] x, float[] g) {
        NDArray leaf = m.create(x);
        leaf.setRequiresGradient(true);
        NDArray y;
        try (Autograd r = Autograd.record()) {
            y = leaf.mul(leaf);
        }
        Autograd.backward(y, m.create(g));
        return leaf.getGradient().toFloatArray();
    }

    @Test
    void backwardWithAGradientGivesTheVectorJacobianProduct() {
        assertArrayEquals(new float[] {2, -12, 3}, squareGradient(manager, new float[] {1, 2, 3}, new float[] {1, -3, 0.5f}));
    }

    @Test
    void twoThreadsRecordAndBackPropagateAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch bothRecording = new CountDownLatch(2);
        try {
            List<Future<float[]>> results = pool.invokeAll(List.of(1f, 10f).stream().map(v -> (java.util.concurrent.Callable<float[]>) () -> {
                try (NDManager m = manager.newSubManager()) {
                    NDArray leaf = m.create(new float[] {v});
                    leaf.setRequiresGradient(true);
                    NDArray y;
                    try (Autograd r = Autograd.record()) {
                        bothRecording.countDown();
                        bothRecording.await(); // DJL's GradientCollector would refuse the second thread here
                        y = leaf.mul(leaf).mul(leaf).sum();
                    }
                    Autograd.backward(y);
                    return leaf.getGradient().toFloatArray();
                }
            }).toList());
            assertArrayEquals(new float[] {3}, results.get(0).get());
            assertArrayEquals(new float[] {300}, results.get(1).get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void gradientsAddUpOverBackwardPasses() {
        NDArray leaf = manager.create(new float[] {1, 2});
        leaf.setRequiresGradient(true);
        for (int i = 0; i < 2; i++) {
            NDArray y;
            try (Autograd r = Autograd.record()) {
                y = leaf.mul(leaf).sum();
            }
            Autograd.backward(y);
        }
        assertArrayEquals(new float[] {4, 8}, leaf.getGradient().toFloatArray());
    }

    /** A gradient that overflowed to NaN and infinity is zero afterwards, as the next step needs it. */
    @Test
    void zeroGradientClearsEvenNanAndInfinity() {
        NDArray leaf = manager.create(new float[] {0, 1, 2});
        leaf.setRequiresGradient(true);
        NDArray y;
        try (Autograd r = Autograd.record()) {
            y = leaf.log().mul(leaf.log()).sum(); // d/dx log(x)^2 = 2 log(x) / x: NaN at 0 (-inf/0), 0 at 1, finite at 2
        }
        Autograd.backward(y);
        float[] before = leaf.getGradient().toFloatArray();
        assertTrue(!Float.isFinite(before[0]), "the set-up should give a non-finite gradient, got " + before[0]);
        assertTrue(Autograd.zeroGradient(leaf));
        assertArrayEquals(new float[] {0, 0, 0}, leaf.getGradient().toFloatArray());
    }

    @Test
    void recordingEndsWithTheScope() {
        try (NoGrad off = NoGrad.scope()) {
            assertFalse(NoGrad.recording());
            try (Autograd r = Autograd.record()) {
                assertTrue(NoGrad.recording());
            }
            assertFalse(NoGrad.recording());
        }
    }

    @Test
    void aGradientOfAnotherShapeOrAVectorLossIsRefused() {
        NDArray x = manager.ones(new Shape(3));
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
                () -> Autograd.backward(x, manager.ones(new Shape(2))));
        assertTrue(shape.getMessage().contains("(3)"), shape.getMessage());
        IllegalArgumentException vector = assertThrows(IllegalArgumentException.class, () -> Autograd.backward(x));
        assertTrue(vector.getMessage().contains("one number"), vector.getMessage());
        assertEquals(3, x.size());
    }
}
