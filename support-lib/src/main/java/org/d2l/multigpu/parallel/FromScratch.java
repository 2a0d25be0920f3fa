package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * The primitives of d2l's "multi-GPU training from scratch", by the book's names: the notebook
 * writes them out itself, and these are the same functions for reuse.
 */
public final class FromScratch {

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
     * into every other, so that afterwards every copy holds the sum; returns the elements each
     * device sent and received (device 0 receives (k-1) x N and sends (k-1) x N).
     */
    public static Traffic allreduce(List<NDArray> data) {
        if (data.isEmpty()) {
            throw new IllegalArgumentException("allreduce needs at least one array.");
        }
        int k = data.size();
        long n = data.get(0).size();
        long[] sent = new long[k];
        long[] received = new long[k];
        NDArray first = data.get(0);
        for (int i = 1; i < data.size(); i++) {
            first.addi(data.get(i).toDevice(first.getDevice(), false));
            sent[i] += n;
            received[0] += n;
        }
        for (int i = 1; i < data.size(); i++) {
            copyInto(first, data.get(i));
            sent[0] += n;
            received[i] += n;
        }
        return new Traffic(sent, received);
    }

    /**
     * How many elements each device sent and received during one allreduce, indexed by device
     * (elements, not bytes: multiply by 4 for float32).
     */
    public record Traffic(long[] sent, long[] received) {

        /** The most elements any one device sent. */
        public long maxSent() {
            return Arrays.stream(sent).max().orElse(0);
        }

        /** The most elements any one device received. */
        public long maxReceived() {
            return Arrays.stream(received).max().orElse(0);
        }

        /** The elements sent by all devices together. */
        public long totalSent() {
            return Arrays.stream(sent).sum();
        }

        @Override
        public String toString() {
            return "Traffic[sent=" + Arrays.toString(sent)
                    + ", received=" + Arrays.toString(received) + "]";
        }
    }

    /**
     * Ring allreduce: every array of {@code data} (one per device, device i's neighbour is device
     * i+1 mod k) is cut into k chunks; in k-1 reduce-scatter steps each device sends one chunk to
     * its neighbour, which adds it to its own, until device i holds the full sum of chunk i+1; in
     * k-1 all-gather steps the summed chunks travel once more round the ring. Afterwards every
     * array holds the sum, as with {@link #allreduce}; returns the elements each device sent and
     * received: 2N - c[i+1] - c[i+2] for device i (chunk sizes c as in {@link #chunkSizes}, indices
     * mod k), which is 2(k-1)/k x N when k divides N.
     */
    public static Traffic ringAllreduce(List<NDArray> data) {
        if (data.isEmpty()) {
            throw new IllegalArgumentException("ringAllreduce needs at least one array.");
        }
        int k = data.size();
        Shape shape = data.get(0).getShape();
        for (int i = 1; i < k; i++) {
            if (!data.get(i).getShape().equals(shape)) {
                throw new IllegalArgumentException("ringAllreduce: array " + i + " has shape "
                        + data.get(i).getShape() + " but array 0 has " + shape
                        + "; every device must hold the same shape.");
            }
        }
        long n = shape.size();
        long[] sizes = chunkSizes(n, k);
        long[] starts = new long[k + 1];
        for (int c = 0; c < k; c++) {
            starts[c + 1] = starts[c] + sizes[c];
        }
        long[] sent = new long[k];
        long[] received = new long[k];
        try (NDManager scratch = data.get(0).getManager().newSubManager()) {
            List<NDArray> flat = new ArrayList<>(k);
            for (NDArray a : data) {
                NDArray view = a.reshape(-1);
                view.attach(scratch);
                flat.add(view.duplicate()); // the device's own working buffer, freed with scratch
            }
            // Reduce-scatter: at step s device i sends chunk (i - s) mod k; its neighbour adds it in.
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, false, starts, sent, received, scratch);
            }
            // All-gather: at step s device i sends its summed chunk (i + 1 - s) mod k; its neighbour keeps it.
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, true, starts, sent, received, scratch);
            }
            for (int i = 0; i < k; i++) {
                copyInto(flat.get(i).reshape(shape), data.get(i));
            }
        }
        return new Traffic(sent, received);
    }

    /**
     * The sizes of the k chunks into which ring allreduce cuts {@code n} elements: n / k each, the
     * first n mod k one element more (so 10 elements on 4 devices give 3, 3, 2, 2).
     */
    public static long[] chunkSizes(long n, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("chunkSizes needs at least one device, got " + k + ".");
        }
        long[] sizes = new long[k];
        for (int c = 0; c < k; c++) {
            sizes[c] = n / k + (c < n % k ? 1 : 0);
        }
        return sizes;
    }

    /**
     * One ring step: every device i sends one chunk to device i+1 at the same time (messages are
     * copied first, then delivered), which adds it to its own chunk or, when {@code gather}, keeps it.
     */
    private static void ringStep(List<NDArray> flat, int s, boolean gather, long[] starts,
            long[] sent, long[] received, NDManager scratch) {
        int k = flat.size();
        NDArray[] messages = new NDArray[k];
        int[] chunks = new int[k];
        for (int i = 0; i < k; i++) {
            int c = Math.floorMod(gather ? i + 1 - s : i - s, k);
            chunks[i] = c;
            if (starts[c + 1] > starts[c]) {
                int to = (i + 1) % k;
                NDArray piece = flat.get(i).get(new NDIndex("{}:{}", starts[c], starts[c + 1]));
                messages[i] = ReplicaStore.copy(piece, flat.get(to).getDevice()); // the wire
                messages[i].attach(scratch);
                sent[i] += messages[i].size();
                received[to] += messages[i].size();
            }
        }
        for (int i = 0; i < k; i++) {
            if (messages[i] == null) {
                continue; // an empty chunk (fewer elements than devices): nothing to send
            }
            int c = chunks[i];
            NDArray dst = flat.get((i + 1) % k);
            NDIndex range = new NDIndex("{}:{}", starts[c], starts[c + 1]);
            dst.set(range, gather ? messages[i] : dst.get(range).add(messages[i]));
        }
    }

    /** Overwrites {@code dst} in place with the values of {@code src}, which may be on another device. */
    public static void copyInto(NDArray src, NDArray dst) {
        OnDevice.copyInto(src, dst);
    }

    /** Sets every element of {@code array} to zero in place (unlike {@code subi(self)}, also over NaN). */
    public static void zero(NDArray array) {
        OnDevice.zero(array);
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
        List<NDArray> xOut = new ArrayList<>(k);
        List<NDArray> yOut = new ArrayList<>(k);
        for (NDList part : Devices.split(x, y, devices)) {
            xOut.add(part.get(0));
            yOut.add(part.get(1));
        }
        return new Shards(xOut, yOut);
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
