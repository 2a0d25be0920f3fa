package org.d2l.multigpu.precision;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.core.Linear;
import org.d2l.multigpu.lesson.FromScratch;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.NoGrad;

/** A one-output linear model without bias whose gradients are known exactly, for the precision tests. */
public final class PrecisionFixture {

    private PrecisionFixture() {}

    /** y = w . x for inputs of {@code weights.length} features, with weights {@code weights}. */
    public static Block linear(NDManager manager, float... weights) {
        Djl.setup();
        Block net = Linear.builder().setUnits(1).optBias(false).build();
        net.initialize(manager, DataType.FLOAT32, new Shape(1, weights.length));
        try (NoGrad g = NoGrad.scope()) {
            NDArray w = net.getParameters().get(0).getValue().getArray();
            FromScratch.copyInto(manager.create(weights).reshape(1, weights.length), w);
        }
        return net;
    }

    /** A network and a minibatch of examples {@code x} with labels {@code y}. */
    public record NetAndBatch(Block net, NDArray x, NDArray y) {}

    /** LeNet, initialised with seed {@code seed}, and 16 random images with random labels, in {@code manager}. */
    public static NetAndBatch leNetAndBatch(NDManager manager, int seed) {
        Djl.setup();
        manager.getEngine().setRandomSeed(seed);
        Block net = org.d2l.multigpu.models.LeNet.block();
        net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
        NDArray x = manager.randomUniform(0, 1, new Shape(16, 1, 28, 28));
        NDArray y = manager.randomInteger(0, 10, new Shape(16), DataType.INT32).toType(DataType.FLOAT32, false);
        return new NetAndBatch(net, x, y);
    }
}
