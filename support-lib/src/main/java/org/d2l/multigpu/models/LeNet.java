package org.d2l.multigpu.models;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import java.util.List;
import java.util.function.Function;

/** The LeNet of d2l's "multi-GPU training from scratch": conv 20@3x3, conv 50@5x5, dense 128, dense 10. */
public final class LeNet {

    private LeNet() {}

    /** The lesson's parameters W1, b1, ..., W4, b4, weights drawn from normal(0, 0.01) and biases zero. */
    public static List<NDArray> initParams(NDManager manager) {
        return List.of(
                manager.randomNormal(0, 0.01f, new Shape(20, 1, 3, 3), DataType.FLOAT32),
                manager.zeros(new Shape(20)),
                manager.randomNormal(0, 0.01f, new Shape(50, 20, 5, 5), DataType.FLOAT32),
                manager.zeros(new Shape(50)),
                manager.randomNormal(0, 0.01f, new Shape(800, 128), DataType.FLOAT32),
                manager.zeros(new Shape(128)),
                manager.randomNormal(0, 0.01f, new Shape(128, 10), DataType.FLOAT32),
                manager.zeros(new Shape(10)));
    }

    /** The lesson's functional LeNet: logits (B, 10) of images {@code x} (B, 1, 28, 28) under {@code params}. */
    public static NDArray lenet(NDArray x, List<NDArray> params) {
        NDArray h1 = Pool.avgPool2d(Activation.relu(Conv2d.conv2d(x, params.get(0), params.get(1)).singletonOrThrow()),
                new Shape(2, 2), new Shape(2, 2), new Shape(0, 0), false, true);
        NDArray h2 = Pool.avgPool2d(Activation.relu(Conv2d.conv2d(h1, params.get(2), params.get(3)).singletonOrThrow()),
                new Shape(2, 2), new Shape(2, 2), new Shape(0, 0), false, true);
        NDArray h3 = Activation.relu(h2.reshape(h2.getShape().get(0), -1).matMul(params.get(4)).add(params.get(5)));
        return h3.matMul(params.get(6)).add(params.get(7));
    }

    /** The same network as a DJL block, for the data-parallel trainer and DJL's own {@code Trainer}. */
    public static SequentialBlock block() {
        return block(Activation::relu);
    }

    /** The same block with {@code activation} in place of its ReLUs (d2l's first LeNet used sigmoids). */
    public static SequentialBlock block(Function<NDList, NDList> activation) {
        return new SequentialBlock()
                .add(Conv2d.builder().setFilters(20).setKernelShape(new Shape(3, 3)).build())
                .add(activation)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Conv2d.builder().setFilters(50).setKernelShape(new Shape(5, 5)).build())
                .add(activation)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(128).build())
                .add(activation)
                .add(Linear.builder().setUnits(10).build());
    }

    /**
     * The LeNet of Deeplearning4j's multi-GPU example ({@code ParallelWrapper}): conv 20@5x5, max-pool,
     * conv 50@5x5, max-pool, dense 500 with ReLU, dense 10 (the softmax is in the loss).
     */
    public static SequentialBlock dl4jExample() {
        return new SequentialBlock()
                .add(Conv2d.builder().setFilters(20).setKernelShape(new Shape(5, 5)).build())
                .add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Conv2d.builder().setFilters(50).setKernelShape(new Shape(5, 5)).build())
                .add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(500).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(10).build());
    }
}
