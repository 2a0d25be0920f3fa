package org.d2l.multigpu.spark;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;

/** The lessons' networks as {@link ModelFactory}s that Spark can ship to executors. */
public enum Models implements ModelFactory {

    /** The lessons' LeNet on 28x28 grey images (Fashion-MNIST). */
    LENET {
        @Override
        public Block newBlock() {
            return LeNet.block();
        }

        @Override
        public Shape inputShape() {
            return FASHION_MNIST;
        }
    };

    private static final Shape FASHION_MNIST = new Shape(1, 1, 28, 28);

    /** The lessons' ResNet-18 (d2l 13.6) for Fashion-MNIST with {@code width} channels in its first stage (the book's 64). */
    public static ModelFactory resnet18(int width) {
        if (width < 1) {
            throw new IllegalArgumentException("ResNet-18's width (its first stage's channels) must be at least 1, got "
                    + width + "; the book's is " + ResNet.BOOK_WIDTH + ".");
        }
        return new ResNet18(width);
    }

    /** ResNet-18 at one width; its name carries the width, so that executors pool each width apart. */
    private record ResNet18(int width) implements ModelFactory {
        @Override
        public Block newBlock() {
            return ResNet.resnet18(10, 1, width);
        }

        @Override
        public Shape inputShape() {
            return FASHION_MNIST;
        }

        @Override
        public String name() {
            return "RESNET18_W" + width;
        }
    }
}
