package org.d2l.multigpu.devices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.LiveResources;
import org.junit.jupiter.api.Test;

/**
 * Copies between types and devices leave no sub-manager behind. A trainer's manager belongs to its first device
 * and holds the replicas of the others: on a GPU machine a CPU replica's arrays sit in a gpu(0) manager, and DJL's
 * toType then makes a CPU sub-manager for each copy. A manager named for gpu(0) holding CPU arrays shows the same
 * on a machine without a GPU (nothing is allocated on the GPU).
 */
class OnDeviceTest {

    @Test
    void castOfAnArrayHeldByAManagerOfAnotherDeviceLeavesNoSubManager() {
        Djl.setup();
        try (NDManager cpu = NDManager.newBaseManager(Device.cpu());
                NDManager gpuNamed = NDManager.newBaseManager(Device.gpu(0));
                NDManager step = NDManager.newBaseManager(Device.cpu())) {
            NDArray half = cpu.create(new float[] {1.5f, -2f, 3.25f}).toType(DataType.FLOAT16, true);
            half.attach(gpuNamed);
            int before = gpuNamed.getManagedArrays().size();
            long managersBefore = subManagers(gpuNamed);
            for (int i = 0; i < 5; i++) {
                NDArray f32 = OnDevice.cast(half, DataType.FLOAT32, step);
                assertSame(step, f32.getManager());
                assertEquals(DataType.FLOAT32, f32.getDataType());
                assertArrayEquals(new float[] {1.5f, -2f, 3.25f}, f32.toFloatArray());
            }
            assertEquals(managersBefore, subManagers(gpuNamed), "OnDevice.cast left sub-managers behind");
            assertEquals(before, gpuNamed.getManagedArrays().size());
            // what DJL's toType does by itself, which the trainer's float16 steps did before
            half.toType(DataType.FLOAT32, true).attach(step);
            assertEquals(managersBefore + 1, subManagers(gpuNamed), "DJL's toType no longer makes a sub-manager: "
                    + "OnDevice.cast's cleanup may be unnecessary");
        }
    }

    @Test
    void castKeepsTheValuesAndTheDevice() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager(Device.cpu()); NDManager into = m.newSubManager()) {
            NDArray x = m.create(new float[] {0.1f, 65504f, 1e-8f}, new Shape(3));
            NDArray half = OnDevice.cast(x, DataType.FLOAT16, into);
            assertEquals(Device.cpu(), half.getDevice());
            assertSame(into, half.getManager());
            // float16's nearest values: 0.1 -> 0.0999755859375, 65504 stays, 1e-8 underflows to 0
            assertArrayEquals(new float[] {0.0999755859375f, 65504f, 0f},
                    half.toType(DataType.FLOAT32, false).toFloatArray());
        }
    }

    private static long subManagers(NDManager m) {
        return LiveResources.subManagers(m);
    }
}
