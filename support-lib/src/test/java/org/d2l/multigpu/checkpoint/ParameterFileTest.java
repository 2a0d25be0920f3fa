package org.d2l.multigpu.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

/** DJL's parameter file read back without replacing the block's own arrays (which replicas and gradients use). */
class ParameterFileTest {

    @Test
    void aResNetParameterFileReadsBackWhileTheBlockKeepsItsOwnArrays() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager(Device.cpu()); NDManager tmp = manager.newSubManager()) {
            Block net = ResNet.resnet18(10, 1);
            net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            byte[] file = ParameterFile.of(net);
            List<NDArray> own = net.getParameters().stream().map(p -> p.getValue().getArray()).toList();
            List<float[]> saved = own.stream().map(NDArray::toFloatArray).toList();
            own.forEach(a -> a.muli(2)); // the model moves on after the checkpoint
            Map<String, NDArray> read = ParameterFile.read(net, file, tmp);
            List<Pair<String, Parameter>> params = net.getParameters().stream().toList();
            assertEquals(params.size(), read.size());
            for (int i = 0; i < params.size(); i++) {
                assertSame(own.get(i), params.get(i).getValue().getArray(), "the block keeps its array");
                assertArrayEquals(saved.get(i), read.get(params.get(i).getKey()).toFloatArray(), 0f,
                        params.get(i).getKey());
            }
        }
    }

    @Test
    void aParameterFileOfAnotherNetworkIsRefused() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager(Device.cpu()); NDManager tmp = manager.newSubManager()) {
            Block resnet = ResNet.resnet18(10, 1);
            resnet.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            Block lenet = LeNet.block();
            lenet.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            NDArray first = lenet.getParameters().get(0).getValue().getArray();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ParameterFile.read(lenet, ParameterFile.of(resnet), tmp));
            assertTrue(e.getMessage().startsWith("The parameter file does not fit this network"), e.getMessage());
            assertSame(first, lenet.getParameters().get(0).getValue().getArray());
        }
    }

    @Test
    void namedArraysRoundTripAndNoneTakeNoBytes() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            byte[] bytes = ParameterFile.encode(Map.of("0|1|conv@worker1", manager.create(new float[] {1, 2, 3})));
            Map<String, NDArray> back = ParameterFile.decode(bytes, manager);
            assertArrayEquals(new float[] {1, 2, 3}, back.get("0|1|conv@worker1").toFloatArray(), 0f);
            assertEquals(0, ParameterFile.encode(Map.of()).length);
            assertTrue(ParameterFile.decode(new byte[0], manager).isEmpty());
        }
    }
}
