package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ChanceLevelTest {

    @Test
    void largestShareAndItsBarOfThreeStandardErrors() throws Exception {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            float[] labels = {0, 1, 1, 2, 1, 0, 1, 2};
            ArrayDataset data = new ArrayDataset.Builder().setData(m.zeros(new Shape(8, 1)))
                    .optLabels(m.create(labels)).setSampling(3, false).build();
            ChanceLevel level = ChanceLevel.of(data.getData(m), 3);
            assertEquals(0.5, level.largestShare());
            assertEquals(8, level.examples());
            assertEquals(0.5 + 3 * Math.sqrt(0.25 / 8), level.bar(), 1e-12);
            assertThrows(IllegalArgumentException.class, () -> ChanceLevel.of(data.getData(m), 2));
        }
    }
}
