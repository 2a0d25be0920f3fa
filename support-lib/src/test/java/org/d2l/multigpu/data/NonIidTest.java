package org.d2l.multigpu.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import org.junit.jupiter.api.Test;

class NonIidTest {

    @Test
    void orderDealsBlocksOfEachWorkersClassesInTurnAndDropsWhatIsLeftOver() {
        int[] labels = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4};
        // group 0 (even): indices 0 2 4 6 8 10 12 14; group 1 (odd): 1 3 5 7 9 11 13
        assertArrayEquals(new long[] {0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}, NonIid.order(labels, 2, 3));
    }

    @Test
    void everyMinibatchOfTheDatasetHoldsOnlyItsWorkersClasses() throws Exception {
        try (NDManager manager = NDManager.newBaseManager()) {
            int n = 40;
            float[] labels = new float[n];
            for (int i = 0; i < n; i++) {
                labels[i] = i % 10;
            }
            NDArray x = manager.arange((float) n).reshape(new Shape(n, 1)); // the example's own index
            ArrayDataset source = new ArrayDataset.Builder().setData(x).optLabels(manager.create(labels))
                    .setSampling(7, false).build();
            ArrayDataset skewed = NonIid.byClass(source, 2, 4, manager);
            int j = 0;
            for (Batch b : skewed.getData(manager)) {
                try (b) {
                    float[] y = b.getLabels().head().toFloatArray();
                    float[] id = b.getData().head().toFloatArray();
                    assertEquals(4, y.length);
                    for (int i = 0; i < y.length; i++) {
                        assertEquals(j % 2, ((int) y[i]) % 2, "minibatch " + j + " goes to worker " + (j % 2));
                        assertEquals(labels[(int) id[i]], y[i], "examples keep their labels");
                    }
                }
                j++;
            }
            assertEquals(10, j, "20 examples per worker make 5 minibatches of 4 each");
        }
    }

    @Test
    void tooFewExamplesForOneMinibatchPerWorkerAreRefused() {
        try (NDManager manager = NDManager.newBaseManager()) {
            ArrayDataset source = new ArrayDataset.Builder().setData(manager.zeros(new Shape(3, 1)))
                    .optLabels(manager.create(new float[] {0, 1, 2})).setSampling(3, false).build();
            assertThrows(IllegalArgumentException.class, () -> NonIid.byClass(source, 2, 4, manager));
        }
    }
}
