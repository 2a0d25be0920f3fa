package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * The primitives of d2l's "multi-GPU training from scratch", by the book's names: the notebook
 * writes them out itself, and these are the same functions for reuse.
 */
public final class FromScratch {

    private static final NDIndex ALL = new NDIndex("...");

    private FromScratch() {}

    /** The parts of one batch that go to each device: {@code x().get(i)} and {@code y().get(i)} for device i. */
    public record Shards(List<NDArray> x, List<NDArray> y) {}

    /**
     * Copies {@code params} to {@code device} (a fresh copy even on the same device), attached to
     * {@code manager} and with gradients attached, as the book's {@code get_params}.
     */
    public static List<NDArray> getParams(List<NDArray> params, Device device, NDManager manager) {
        List<NDArray> copies = new ArrayList<>();
        for (NDArray p : params) {
            NDArray c = ReplicaStore.copy(p, device);
            c.attach(manager);
            c.setRequiresGradient(true);
            copies.add(c);
        }
        return copies;
    }

    /**
     * Sums the arrays of {@code data} (one per device) into the first, then copies that sum back
     * into every other, so that afterwards every copy holds the sum.
     */
    public static void allreduce(List<NDArray> data) {
        if (data.isEmpty()) {
            throw new IllegalArgumentException("allreduce needs at least one array.");
        }
        NDArray first = data.get(0);
        for (int i = 1; i < data.size(); i++) {
            first.addi(data.get(i).toDevice(first.getDevice(), false));
        }
        for (int i = 1; i < data.size(); i++) {
            copyInto(first, data.get(i));
        }
    }

    /** Overwrites {@code dst} in place with the values of {@code src}, which may be on another device. */
    public static void copyInto(NDArray src, NDArray dst) {
        try (NDManager tmp = scratch(dst)) {
            NDArray moved = src.toDevice(dst.getDevice(), false);
            dst.set(ALL, moved);
            if (moved != src) {
                moved.close(); // a copy made only to cross devices
            }
        }
    }

    /**
     * A manager that {@code array} is attached to until it closes, so that the helper arrays an
     * in-place update creates (DJL's {@code set} makes one for a scalar) are freed with it.
     */
    private static NDManager scratch(NDArray array) {
        NDManager tmp = array.getManager().newSubManager();
        array.tempAttach(tmp);
        return tmp;
    }

    /** Sets every element of {@code array} to zero in place (unlike {@code subi(self)}, also over NaN). */
    public static void zero(NDArray array) {
        try (NDManager tmp = scratch(array)) {
            array.set(ALL, 0f);
        }
    }

    /**
     * Splits the examples {@code x} and labels {@code y} along the first axis into one shard per
     * device and moves each shard there; sizes differ by at most one (7 examples on 2 devices give 4
     * and 3).
     */
    public static Shards splitBatch(NDArray x, NDArray y, List<Device> devices) {
        int k = devices.size();
        long n = x.getShape().get(0);
        if (k < 1) {
            throw new IllegalArgumentException("splitBatch needs at least one device.");
        }
        if (y.getShape().get(0) != n) {
            throw new IllegalArgumentException("splitBatch: " + n + " examples but "
                    + y.getShape().get(0) + " labels; they must match.");
        }
        if (n < k) {
            throw new IllegalArgumentException("A batch of " + n + " example(s) cannot be split over "
                    + k + " devices: use a batch size of at least " + k + " (or fewer devices).");
        }
        long[] ends = shardEnds(n, k);
        NDList xs = x.split(ends, 0);
        NDList ys = y.split(ends, 0);
        List<NDArray> xOut = new ArrayList<>(k);
        List<NDArray> yOut = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            xOut.add(xs.get(i).toDevice(devices.get(i), false));
            yOut.add(ys.get(i).toDevice(devices.get(i), false));
        }
        return new Shards(xOut, yOut);
    }

    /** The split points of {@code n} examples over {@code k} devices (the first {@code n % k} shards get one more). */
    static long[] shardEnds(long n, int k) {
        long[] ends = new long[k - 1];
        long base = n / k;
        long extra = n % k;
        long pos = 0;
        for (int i = 0; i < k - 1; i++) {
            pos += base + (i < extra ? 1 : 0);
            ends[i] = pos;
        }
        return ends;
    }

    /**
     * Minibatch SGD, as the book's {@code sgd}: {@code param -= lr * grad / batchSize} for each
     * parameter, with gradient recording off as under the book's {@code torch.no_grad()}.
     */
    public static void sgd(List<NDArray> params, float lr, long batchSize) {
        try (NoGrad off = NoGrad.scope()) {
            for (NDArray p : params) {
                try (NDArray g = p.getGradient(); NDArray step = g.mul(lr / batchSize)) {
                    p.subi(step);
                }
            }
        }
    }

    /**
     * One step of the book's {@code train_batch}: split the batch over {@code devices}, forward and
     * backward on each device with its own parameter copy, {@code allreduce} every gradient, then SGD
     * on every copy (gradients are then reset to zero); the loss is summed on each device and SGD divides by the global batch size, so
     * the update uses the mean gradient over the whole batch. Returns the summed loss.
     */
    public static float trainBatch(NDArray x, NDArray y, List<List<NDArray>> deviceParams,
            List<Device> devices, float lr, Loss loss,
            BiFunction<NDArray, List<NDArray>, NDArray> net) {
        Shards shards = splitBatch(x, y, devices);
        float total = 0;
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            for (int i = 0; i < devices.size(); i++) {
                NDArray yHat = net.apply(shards.x().get(i), deviceParams.get(i));
                NDArray l = loss.evaluate(new NDList(shards.y().get(i)), new NDList(yHat))
                        .mul(shards.x().get(i).getShape().get(0)); // DJL's loss is a mean: make it a sum
                gc.backward(l);
                total += l.getFloat();
            }
        }
        int numParams = deviceParams.get(0).size();
        for (int j = 0; j < numParams; j++) {
            List<NDArray> grads = new ArrayList<>();
            for (List<NDArray> params : deviceParams) {
                grads.add(params.get(j).getGradient());
            }
            allreduce(grads);
            grads.forEach(NDArray::close); // getGradient() hands out a new handle each call
        }
        for (List<NDArray> params : deviceParams) {
            sgd(params, lr, x.getShape().get(0));
            for (NDArray p : params) {
                try (NDArray g = p.getGradient()) {
                    zero(g); // PyTorch adds up gradients: start afresh
                }
            }
        }
        return total;
    }
}
