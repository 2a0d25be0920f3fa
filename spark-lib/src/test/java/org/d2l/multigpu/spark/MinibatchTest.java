package org.d2l.multigpu.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MinibatchTest {

    @Test
    void asDatasetHandsOutTheSameMinibatchesInTheSameOrderWithASmallerLastOne() throws Exception {
        List<Minibatch> batches = new ArrayList<>(SyntheticData.minibatches(3, 8, 3));
        batches.add(SyntheticData.minibatches(1, 5, 4).get(0));
        try (NDManager manager = NDManager.newBaseManager()) {
            ArrayDataset data = Minibatch.asDataset(batches, manager);
            List<Minibatch> back = Minibatch.listOf(data, manager);
            assertEquals(batches.size(), back.size());
            for (int i = 0; i < batches.size(); i++) {
                assertArrayEquals(batches.get(i).shape(), back.get(i).shape(), "minibatch " + i);
                assertArrayEquals(batches.get(i).x(), back.get(i).x(), "minibatch " + i);
                assertArrayEquals(batches.get(i).y(), back.get(i).y(), "minibatch " + i);
            }
            for (Batch b : data.getData(manager)) {
                try (b) {
                    assertEquals(8, b.getSize(), "the first minibatch's size");
                    break;
                }
            }
        }
    }

    @Test
    void asDatasetRefusesMinibatchesOfUnequalSizeBeforeTheLast() {
        List<Minibatch> batches = new ArrayList<>(SyntheticData.minibatches(1, 8, 3));
        batches.add(SyntheticData.minibatches(1, 5, 4).get(0));
        batches.add(SyntheticData.minibatches(1, 8, 5).get(0));
        try (NDManager manager = NDManager.newBaseManager()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Minibatch.asDataset(batches, manager));
            assertTrue(e.getMessage().contains("Minibatch 1 holds 5 examples"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Minibatch.asDataset(List.of(), manager));
        }
    }
}
