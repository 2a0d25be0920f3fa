package org.d2l.multigpu.spark;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.translate.TranslateException;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One minibatch as plain Java arrays, so that Spark can serialise it: examples {@code x} of shape
 * {@code shape} (first axis = examples) and one label per example in {@code y}.
 */
public record Minibatch(float[] x, long[] shape, float[] y) implements Serializable {

    /** Checks that the shape, the examples and the labels agree. */
    public Minibatch {
        long n = new Shape(shape).size();
        if (n != x.length) {
            throw new IllegalArgumentException("Minibatch: shape " + new Shape(shape) + " holds " + n
                    + " values but x has " + x.length + ".");
        }
        if (shape.length == 0 || shape[0] != y.length) {
            throw new IllegalArgumentException("Minibatch: " + (shape.length == 0 ? 0 : shape[0])
                    + " examples but " + y.length + " labels; give one label per example.");
        }
    }

    /** The minibatch holding the examples {@code x} and labels {@code y} (copied out of the engine). */
    public static Minibatch of(NDArray x, NDArray y) {
        return new Minibatch(x.toType(DataType.FLOAT32, false).toFloatArray(), x.getShape().getShape(),
                y.toType(DataType.FLOAT32, false).toFloatArray());
    }

    /** Every batch of {@code dataset} in the order it hands them out (use a sequential sampler for a fixed order). */
    public static List<Minibatch> listOf(Dataset dataset, NDManager manager) {
        List<Minibatch> out = new ArrayList<>();
        try {
            for (Batch b : dataset.getData(manager)) {
                try (b) {
                    out.add(of(b.getData().head(), b.getLabels().head()));
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (TranslateException ex) {
            throw new IllegalStateException("Could not read a batch: " + ex.getMessage(), ex);
        }
        return out;
    }

    /** The number of examples. */
    public int size() {
        return y.length;
    }

    /** The examples as an array attached to {@code manager}. */
    public NDArray x(NDManager manager) {
        return manager.create(x, new Shape(shape));
    }

    /** The labels as an array attached to {@code manager}. */
    public NDArray y(NDManager manager) {
        return manager.create(y);
    }
}
