package org.d2l.multigpu.spark;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import org.d2l.multigpu.models.LeNet;

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
            return new Shape(1, 1, 28, 28);
        }
    }
}
