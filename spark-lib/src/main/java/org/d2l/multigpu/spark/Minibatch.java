package org.d2l.multigpu.spark;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.data.Batches;

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
        for (Batch b : Batches.of(dataset, manager, "training")) {
            try (b) {
                out.add(of(b.getData().head(), b.getLabels().head()));
            }
        }
        return out;
    }

    /**
     * {@code batches} as one DJL dataset that hands them out in this order, each as a plain
     * (B, C, H, W) array: the in-process trainer then reads the very arrays Spark's tasks read
     * (DJL's Fashion-MNIST batches are transposed views, channels-last in memory, for which PyTorch's
     * convolution rounds differently). Every minibatch but the last must have the size of the first.
     */
    public static ArrayDataset asDataset(List<Minibatch> batches, NDManager manager) {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("No minibatches to make a dataset of: the list is empty.");
        }
        int size = batches.get(0).size();
        for (int i = 1; i < batches.size(); i++) {
            int n = batches.get(i).size();
            if (n > size || (n < size && i < batches.size() - 1)) {
                throw new IllegalArgumentException("Minibatch " + i + " holds " + n + " examples and the first "
                        + size + ": a dataset hands out equal minibatches, only the last may be smaller.");
            }
        }
        NDList xs = new NDList();
        NDList ys = new NDList();
        try (NDManager tmp = manager.newSubManager()) {
            for (Minibatch b : batches) {
                xs.add(b.x(tmp));
                ys.add(b.y(tmp));
            }
            NDArray x = NDArrays.concat(xs);
            NDArray y = NDArrays.concat(ys);
            x.attach(manager);
            y.attach(manager);
            return new ArrayDataset.Builder().setData(x).optLabels(y).setSampling(size, false).build();
        }
    }

    /** Examples {@code from} to {@code to} - 1 (and their labels) as a minibatch of their own. */
    public Minibatch slice(int from, int to) {
        if (from < 0 || to > size() || from > to) {
            throw new IllegalArgumentException("Examples " + from + " to " + to + " are not a range of this minibatch of "
                    + size() + ".");
        }
        long[] s = shape.clone();
        s[0] = to - from;
        int per = size() == 0 ? 0 : x.length / size();
        return new Minibatch(java.util.Arrays.copyOfRange(x, from * per, to * per), s,
                java.util.Arrays.copyOfRange(y, from, to));
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
