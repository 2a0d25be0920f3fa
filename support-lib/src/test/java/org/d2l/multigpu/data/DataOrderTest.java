package org.d2l.multigpu.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Sampler;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.LongStream;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

/** The order of a shuffled epoch depends only on the seed and the epoch's number. */
class DataOrderTest {

    private static List<List<Long>> batches(ArrayDataset data, long seed, int epoch) {
        Sampler s = DataOrder.of(data, seed, epoch);
        List<List<Long>> out = new ArrayList<>();
        for (Iterator<List<Long>> it = s.sample(data); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    @Test
    void anEpochsOrderIsAFunctionOfSeedAndEpochOnlyAndKeepsTheBatchSize() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            ArrayDataset data = new ArrayDataset.Builder().setData(m.arange(50f)).setSampling(16, true).build();
            List<List<Long>> e1 = batches(data, 42, 1);
            ai.djl.util.RandomUtils.RANDOM.nextLong(); // DJL's shared generator moves: no effect
            assertEquals(e1, batches(data, 42, 1));
            assertNotEquals(e1, batches(data, 42, 2));
            assertNotEquals(e1, batches(data, 43, 1));
            assertEquals(List.of(16, 16, 16, 2), e1.stream().map(List::size).toList());
            assertEquals(LongStream.range(0, 50).boxed().toList(),
                    e1.stream().flatMap(List::stream).sorted().toList());
        }
    }

    @Test
    void aDataSetReadInOrderKeepsItsOwnSampler() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            ArrayDataset data = new ArrayDataset.Builder().setData(m.arange(50f)).setSampling(16, false).build();
            assertNull(DataOrder.of(data, 42, 1));
        }
    }
}
