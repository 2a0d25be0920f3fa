package org.d2l.multigpu.models;

import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.initializer.Initializer;
import ai.djl.training.initializer.NormalInitializer;
import ai.djl.training.initializer.XavierInitializer;

/** Weight initialisations with which the lesson's models train (DJL's default makes ResNet-18 diverge). */
public final class Init {

    private Init() {}

    /** PyTorch's default: weights uniform in +-1/sqrt(fanIn). */
    public static Initializer pytorchLike() {
        return new XavierInitializer(
                XavierInitializer.RandomType.UNIFORM, XavierInitializer.FactorType.IN, 1);
    }

    /** Deeplearning4j's {@code WeightInit.XAVIER}: weights drawn from normal(0, sqrt(2 / (fanIn + fanOut))). */
    public static Initializer xavier() {
        return new XavierInitializer(
                XavierInitializer.RandomType.GAUSSIAN, XavierInitializer.FactorType.AVG, 1);
    }

    /** The book's from-scratch initialisation: weights drawn from normal(0, sigma). */
    public static Initializer normal(float sigma) {
        return new NormalInitializer(sigma);
    }

    /** Sets {@code init} on every weight of {@code net} (biases stay zero) and returns the block. */
    public static <B extends Block> B weights(B net, Initializer init) {
        net.setInitializer(init, Parameter.Type.WEIGHT);
        return net;
    }
}
