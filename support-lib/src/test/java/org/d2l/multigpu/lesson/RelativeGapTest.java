package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDManager;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelativeGapTest {

    @Test
    void theLargestDifferenceIsDividedByTheSecondArraysLargestElement() {
        try (NDManager m = NDManager.newBaseManager()) {
            // |a - b| = (0.5, 0, 1); max |b| = 4
            assertEquals(0.25, RelativeGap.of(m.create(new float[] {1.5f, -2, 3}), m.create(new float[] {1, -2, 4})),
                    0);
            assertEquals(0, RelativeGap.of(m.zeros(new ai.djl.ndarray.types.Shape(3)),
                    m.zeros(new ai.djl.ndarray.types.Shape(3))), 0);
        }
    }

    @Test
    void largestTakesTheWorstPairAndMismatchesAreRefused() {
        try (NDManager m = NDManager.newBaseManager()) {
            var a = List.of(m.create(new float[] {1, 1}), m.create(new float[] {2, 2}));
            var b = List.of(m.create(new float[] {1, 1}), m.create(new float[] {2, 4}));
            assertEquals(0.5, RelativeGap.largest(a, b), 0);
            assertThrows(IllegalArgumentException.class, () -> RelativeGap.largest(a, b.subList(0, 1)));
            assertThrows(IllegalArgumentException.class,
                    () -> RelativeGap.of(m.create(new float[] {1}), m.create(new float[] {1, 2})));
        }
    }
}
