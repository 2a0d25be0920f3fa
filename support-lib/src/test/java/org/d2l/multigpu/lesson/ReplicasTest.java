package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ReplicasTest {

    @Test
    void copiesAreIdenticalUntilOneBitDiffers() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray a = m.create(new float[] {1f, 2f});
            NDArray b = m.create(new float[] {1f, 2f});
            NDArray c = m.create(new float[] {1f, Math.nextUp(2f)});
            assertTrue(Replicas.identical(List.of(List.of(a), List.of(b))));
            assertFalse(Replicas.identical(List.of(List.of(a), List.of(b), List.of(c))));
            assertThrows(IllegalArgumentException.class, () -> Replicas.identical(List.of(List.of(a), List.of(b, c))));
        }
    }
}
