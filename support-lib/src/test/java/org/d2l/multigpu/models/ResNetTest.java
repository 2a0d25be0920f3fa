package org.d2l.multigpu.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ResNetTest {

    /** Weights and bias of a k x k convolution. */
    private static long conv(long in, long out, long k) {
        return in * out * k * k + out;
    }

    /** Gamma and beta of a batch norm. */
    private static long bn(long c) {
        return 2 * c;
    }

    /** Trained parameters of a residual block, counted from the book's architecture. */
    private static long residual(long in, long out, boolean shortcut) {
        return conv(in, out, 3) + bn(out) + conv(out, out, 3) + bn(out) + (shortcut ? conv(in, out, 1) : 0);
    }

    private static long stage(long in, long out, boolean first) {
        return residual(in, out, !first) + residual(out, out, false);
    }

    @Test
    void resnet18MapsImagesToTenLogitsWithTheBooksParameterCount() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = ResNet.resnet18(10, 1);
            net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            var out = net.forward(new ParameterStore(manager, false),
                    new ai.djl.ndarray.NDList(manager.ones(new Shape(3, 1, 28, 28))), false);
            assertEquals(new Shape(3, 10), out.singletonOrThrow().getShape());
            assertEquals(new Shape(5, 10), net.getOutputShapes(new Shape[] {new Shape(5, 1, 28, 28)})[0]);

            long expected = conv(1, 64, 3) + bn(64)
                    + stage(64, 64, true) + stage(64, 128, false) + stage(128, 256, false) + stage(256, 512, false)
                    + 512 * 10 + 10;
            long trained = 0;
            long runningStats = 0;
            for (Pair<String, Parameter> p : net.getParameters()) {
                long size = p.getValue().getArray().size();
                if (p.getValue().requiresGradient()) {
                    trained += size;
                } else {
                    runningStats += size;
                }
            }
            assertEquals(11_175_818L, expected);
            assertEquals(expected, trained);
            // running mean and variance for every batch norm: 2 * (64 + 4*64 + 4*128+128... ) channels
            assertEquals(2 * (64 + 4 * 64 + 4 * 128 + 4 * 256 + 4 * 512), runningStats);
        }
    }

    @Test
    void resnet18OfWidth16HasTheBooksLayersWithAQuarterOfItsChannels() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = ResNet.resnet18(10, 1, 16);
            net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            long expected = conv(1, 16, 3) + bn(16)
                    + stage(16, 16, true) + stage(16, 32, false) + stage(32, 64, false) + stage(64, 128, false)
                    + 128 * 10 + 10;
            long trained = net.getParameters().stream()
                    .filter(p -> p.getValue().requiresGradient())
                    .mapToLong(p -> p.getValue().getArray().size()).sum();
            assertEquals(expected, trained);
            assertEquals(ResNet.resnet18(10, 1).getChildren().size(), net.getChildren().size());
            assertEquals(new Shape(2, 10), net.getOutputShapes(new Shape[] {new Shape(2, 1, 28, 28)})[0]);
        }
    }

    @Test
    void resnet18RejectsZeroWidthWithTheBooksWidthInTheMessage() {
        var e = assertThrows(IllegalArgumentException.class, () -> ResNet.resnet18(10, 1, 0));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("64"), e.getMessage());
    }

    @Test
    void resnet18RejectsZeroClasses() {
        assertThrows(IllegalArgumentException.class, () -> ResNet.resnet18(0, 1));
    }
}
