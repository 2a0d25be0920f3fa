package org.d2l.multigpu.models;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/** The residual block of ResNet: two 3x3 convolutions with batch norm, plus a shortcut. */
public class Residual extends AbstractBlock {

    private static final byte VERSION = 1;

    private final SequentialBlock block;
    private final Block shortcut;

    /**
     * Creates a residual block with {@code numChannels} output channels; {@code use1x1Conv} adds a
     * 1x1 convolution on the shortcut, needed when the stride or the channel count changes.
     */
    public Residual(int numChannels, boolean use1x1Conv, int strides) {
        super(VERSION);
        block = addChildBlock("block", new SequentialBlock()
                .add(conv(numChannels, 3, strides, 1))
                .add(BatchNorm.builder().build())
                .add(Activation::relu)
                .add(conv(numChannels, 3, 1, 1))
                .add(BatchNorm.builder().build()));
        shortcut = use1x1Conv ? addChildBlock("shortcut", conv(numChannels, 1, strides, 0)) : null;
    }

    /** Creates a residual block that keeps the shape of its input. */
    public Residual(int numChannels) {
        this(numChannels, false, 1);
    }

    static Conv2d conv(int filters, int kernel, int stride, int pad) {
        return Conv2d.builder()
                .setFilters(filters)
                .setKernelShape(new Shape(kernel, kernel))
                .optStride(new Shape(stride, stride))
                .optPadding(new Shape(pad, pad))
                .build();
    }

    @Override
    protected NDList forwardInternal(
            ParameterStore store, NDList inputs, boolean training, PairList<String, Object> params) {
        NDArray x = inputs.singletonOrThrow();
        NDArray y = block.forward(store, inputs, training, params).singletonOrThrow();
        NDArray s = shortcut == null ? x : shortcut.forward(store, inputs, training, params).singletonOrThrow();
        return new NDList(Activation.relu(y.add(s)));
    }

    @Override
    protected void initializeChildBlocks(
            ai.djl.ndarray.NDManager manager, DataType dataType, Shape... inputShapes) {
        block.initialize(manager, dataType, inputShapes);
        if (shortcut != null) {
            shortcut.initialize(manager, dataType, inputShapes);
        }
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputs) {
        return block.getOutputShapes(inputs);
    }
}
