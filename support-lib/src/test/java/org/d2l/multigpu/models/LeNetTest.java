package org.d2l.multigpu.models;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.training.ParameterStore;
import java.util.List;
import org.d2l.multigpu.lesson.FromScratch;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class LeNetTest {

    @Test
    void functionalLeNetAndBlockLeNetComputeTheSameLogits() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            List<NDArray> params = LeNet.initParams(manager);
            assertEquals(new Shape(800, 128), params.get(4).getShape());
            NDArray x = manager.randomUniform(0, 1, new Shape(4, 1, 28, 28));
            NDArray y = LeNet.lenet(x, params);
            assertEquals(new Shape(4, 10), y.getShape());

            Block block = LeNet.block();
            block.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            var blockParams = block.getParameters();
            for (int i = 0; i < params.size(); i++) {
                NDArray p = params.get(i);
                // DJL's Linear stores weights as (out, in); the lesson's as (in, out)
                NDArray v = p.getShape().dimension() == 2 ? p.transpose() : p;
                FromScratch.copyInto(v, blockParams.valueAt(i).getArray());
            }
            NDArray z = block.forward(new ParameterStore(manager, false), new NDList(x), false).head();
            assertArrayEquals(y.toFloatArray(), z.toFloatArray(), 1e-5f);
        }
    }

    @Test
    void anotherActivationKeepsTheLayersAndChangesOnlyTheNonlinearity() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            Block relu = LeNet.block();
            Block sigmoid = LeNet.block(Activation::sigmoid);
            relu.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            sigmoid.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            assertEquals(relu.getParameters().keys(), sigmoid.getParameters().keys());
            for (int i = 0; i < relu.getParameters().size(); i++) {
                NDArray w = relu.getParameters().valueAt(i).getArray();
                assertEquals(w.getShape(), sigmoid.getParameters().valueAt(i).getArray().getShape());
                FromScratch.copyInto(w, sigmoid.getParameters().valueAt(i).getArray());
            }
            NDArray x = manager.randomUniform(0, 1, new Shape(2, 1, 28, 28));
            NDArray a = relu.forward(new ParameterStore(manager, false), new NDList(x), false).head();
            NDArray b = sigmoid.forward(new ParameterStore(manager, false), new NDList(x), false).head();
            assertEquals(a.getShape(), b.getShape());
            assertTrue(a.sub(b).abs().max().getFloat() > 1e-3f, "the activation made no difference");
        }
    }

    @Test
    void theDl4jExampleNetworkHasItsLayersShapesAndXavierScale() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = Init.weights(LeNet.dl4jExample(), Init.xavier());
            net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            long count = 0;
            for (var p : net.getParameters()) {
                count += p.getValue().getArray().size();
            }
            // conv 20@5x5 (520), conv 50@5x5 (25,050), dense 800 -> 500 (400,500), dense 500 -> 10 (5,010)
            assertEquals(431_080, count);
            NDArray x = manager.randomUniform(0, 1, new Shape(3, 1, 28, 28));
            NDArray y = net.forward(new ParameterStore(manager, false), new NDList(x), false).head();
            assertEquals(new Shape(3, 10), y.getShape());
            // DL4J's Xavier: normal with variance 2 / (fanIn + fanOut); dense 800 -> 500 gives std 0.0392.
            NDArray w = net.getParameters().valueAt(4).getArray();
            assertEquals(new Shape(500, 800), w.getShape());
            float std = (float) Math.sqrt(w.sub(w.mean()).square().mean().getFloat());
            assertEquals(Math.sqrt(2.0 / 1300), std, 0.002);
        }
    }
}
