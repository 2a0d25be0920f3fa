package org.d2l.multigpu.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class BatchesTest {

    @Test
    void feedPassesOverTheSetAgainUntilTheStepSaysStopOrTheMostIsReached() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            ArrayDataset data = new ArrayDataset.Builder().setData(m.arange(5f).reshape(new Shape(5, 1)))
                    .optLabels(m.arange(5f)).setSampling(2, false).build(); // batches of 2, 2 and 1
            List<Integer> sizes = new ArrayList<>();
            assertEquals(7, Batches.feed(data, m, 7, b -> sizes.add(b.getSize())));
            assertEquals(List.of(2, 2, 1, 2, 2, 1, 2), sizes);
            List<NDList> two = Batches.first(data, m, 2);
            assertEquals(2, two.size());
            assertEquals(2f, two.get(1).get(0).toFloatArray()[0], 0f); // the second batch starts at example 2
            assertEquals(3, Batches.first(data, m, 10).size()); // all there are
            int[] given = {0};
            assertEquals(2, Batches.feed(data, m, 100, b -> ++given[0] < 2)); // the second step says stop
        }
    }

    @Test
    void takeGoesRoundTheSetAgainAndKeepsTheArraysAfterTheBatchesClose() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            ArrayDataset data = new ArrayDataset.Builder().setData(m.arange(5f).reshape(new Shape(5, 1)))
                    .optLabels(m.arange(5f)).setSampling(2, false).build(); // batches of 2, 2 and 1
            List<NDList> five = Batches.take(data, m, 5);
            assertEquals(5, five.size());
            float[] starts = new float[5];
            for (int i = 0; i < 5; i++) {
                starts[i] = five.get(i).get(0).toFloatArray()[0]; // readable: the batches were closed, the arrays kept
            }
            assertEquals(List.of(0f, 2f, 4f, 0f, 2f), List.of(starts[0], starts[1], starts[2], starts[3], starts[4]));
            assertEquals(0, Batches.take(data, m, 0).size());
        }
    }
}
