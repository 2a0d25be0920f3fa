package org.d2l.multigpu.bench;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;

/**
 * d2l's classic LeNet-5 with sigmoid activations (section 7.6), for the peer suite's comparison with
 * PyTorch: conv 6@5x5 (padding 2), conv 16@5x5, dense 120, 84 and 10, average pooling.
 */
final class ClassicLeNet {

    private ClassicLeNet() {}

    /** The network as a DJL block (PyTorch's twin is {@code lenet_sigmoid} in bench/peer/peer.py). */
    static SequentialBlock block() {
        return new SequentialBlock()
                .add(Conv2d.builder().setFilters(6).setKernelShape(new Shape(5, 5)).optPadding(new Shape(2, 2)).build())
                .add(Activation::sigmoid)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Conv2d.builder().setFilters(16).setKernelShape(new Shape(5, 5)).build())
                .add(Activation::sigmoid)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(120).build())
                .add(Activation::sigmoid)
                .add(Linear.builder().setUnits(84).build())
                .add(Activation::sigmoid)
                .add(Linear.builder().setUnits(10).build());
    }
}
