package org.d2l.multigpu.devices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class DevicesTest {

    @Test
    void withoutGpusOfGivesVirtualReplicasOnTheCpu() {
        Djl.setup();
        if (Devices.gpuCount() == 0) {
            assertEquals(List.of(Device.cpu(), Device.cpu(), Device.cpu()), Devices.of(3));
            assertTrue(Devices.describe(Devices.of(2)).contains("2 virtual replicas"));
        } else {
            assertEquals(Device.gpu(0), Devices.of(1).get(0));
            assertFalse(Devices.hasVirtualReplicas(Devices.of(1)));
        }
        assertTrue(Devices.hasVirtualReplicas(Devices.virtual(2)));
        assertFalse(Devices.hasVirtualReplicas(Devices.virtual(1)));
    }

    @Test
    void splitGivesPartsThatDifferByAtMostOneAndNoEmptyPart() {
        assertArrayEquals(new long[] {3, 6, 8}, Devices.shardEnds(10, 4));
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            List<NDList> parts = Devices.split(manager.arange(3f), manager.arange(3f), Devices.virtual(4));
            assertEquals(3, parts.size(), "3 examples on 4 devices: 3 parts of 1");
            assertArrayEquals(new float[] {2}, parts.get(2).get(1).toFloatArray());
        }
    }

    @Test
    void askingForMoreGpusThanExistIsAClearError() {
        int n = Devices.gpuCount();
        if (n > 0) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Devices.of(n + 1));
            assertTrue(e.getMessage().contains("Devices.virtual"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Devices.check(Device.gpu(n)));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
}
