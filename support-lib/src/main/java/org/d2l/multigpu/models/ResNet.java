package org.d2l.multigpu.models;

import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.pooling.Pool;

/** The ResNet-18 variant of d2l's multi-GPU chapter, for small 28x28 images. */
public final class ResNet {

    /** The first stage's channel count in the book's ResNet-18. */
    public static final int BOOK_WIDTH = 64;

    private ResNet() {}

    /**
     * A stage of {@code numResiduals} residual blocks; every stage but the first halves the height
     * and width and changes the channel count with a 1x1 shortcut convolution.
     */
    public static SequentialBlock resnetBlock(int numChannels, int numResiduals, boolean firstBlock) {
        SequentialBlock blk = new SequentialBlock();
        for (int i = 0; i < numResiduals; i++) {
            if (i == 0 && !firstBlock) {
                blk.add(new Residual(numChannels, true, 2));
            } else {
                blk.add(new Residual(numChannels));
            }
        }
        return blk;
    }

    /**
     * ResNet-18 as in d2l section 13.6: a 3x3 stem with stride 1 and padding 1 and no max-pooling,
     * four stages of 64, 128, 256 and 512 channels, global average pooling and a dense layer; the
     * input's channel count is inferred at initialisation (pass {@code inChannels} for the record).
     */
    public static SequentialBlock resnet18(int numClasses, int inChannels) {
        return resnet18(numClasses, inChannels, BOOK_WIDTH);
    }

    /** The book's ResNet-18 with {@code width} channels in its first stage (stages w, 2w, 4w, 8w). */
    public static SequentialBlock resnet18(int numClasses, int inChannels, int width) {
        if (numClasses < 1 || inChannels < 1 || width < 1) {
            throw new IllegalArgumentException("resnet18 needs numClasses, inChannels and width >= 1, got "
                    + numClasses + ", " + inChannels + " and " + width
                    + " (width is the first stage's channel count; the book's is " + BOOK_WIDTH + ")");
        }
        return new SequentialBlock()
                .add(Residual.conv(width, 3, 1, 1))
                .add(BatchNorm.builder().build())
                .add(Activation::relu)
                .add(resnetBlock(width, 2, true))
                .add(resnetBlock(2 * width, 2, false))
                .add(resnetBlock(4 * width, 2, false))
                .add(resnetBlock(8 * width, 2, false))
                .add(Pool.globalAvgPool2dBlock())
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(numClasses).build());
    }
}
