package org.d2l.multigpu.precision;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.core.Linear;
import org.d2l.multigpu.parallel.FromScratch;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.NoGrad;

/** A one-output linear model without bias whose gradients are known exactly, for the precision tests. */
final class PrecisionFixture {

    private PrecisionFixture() {}

    /** y = w . x for inputs of {@code weights.length} features, with weights {@code weights}. */
    static Block linear(NDManager manager, float... weights) {
        Djl.setup();
        Block net = Linear.builder().setUnits(1).optBias(false).build();
        net.initialize(manager, DataType.FLOAT32, new Shape(1, weights.length));
        try (NoGrad g = NoGrad.scope()) {
            NDArray w = net.getParameters().get(0).getValue().getArray();
            FromScratch.copyInto(manager.create(weights).reshape(1, weights.length), w);
        }
        return net;
    }
}
