package org.d2l.multigpu.lesson;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Ring;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.runtime.Scalars;

/**
 * The primitives of d2l's "multi-GPU training from scratch", by the book's names: the notebook
 * writes them out itself, and these are the same functions for reuse; the collectives themselves
 * (ring allreduce and its halves, the partition of tensors) are the engine's {@link Ring}.
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
            NDArray c = OnDevice.copy(p, device, manager);
            c.setRequiresGradient(true);
            copies.add(c);
        }
        return copies;
    }

    /**
     * The book's {@code allreduce}: sums the arrays of {@code data} (one per device) into the first, then
     * copies that sum back into every other ({@link Collective#direct()}'s allreduce); returns the elements
     * each device sent and received (device 0 receives (k-1) x N and sends (k-1) x N).
     */
    public static Traffic allreduce(List<NDArray> data) {
        return Collective.direct().allreduce("data", data);
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
                // the factor on the gradient's device: its manager may be another device's (a lesson's default manager is
                // gpu(0)'s on a GPU machine, and its virtual replicas are on the CPU)
                try (NDArray g = p.getGradient(); NDArray factor = Scalars.of(g, lr / batchSize); NDArray step = g.mul(factor)) {
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
        List<NDArray> losses = new ArrayList<>(); // read after the loop: reading a loss waits for its device
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            for (int i = 0; i < devices.size(); i++) {
                NDArray yHat = net.apply(shards.x().get(i), deviceParams.get(i));
                NDArray mean = loss.evaluate(new NDList(shards.y().get(i)), new NDList(yHat));
                // DJL's loss is a mean: make it a sum (a scalar from Scalars.of, as autograd keeps it)
                NDArray l = mean.mul(Scalars.of(mean, shards.x().get(i).getShape().get(0)));
                gc.backward(l);
                losses.add(l);
            }
        }
        float total = 0;
        for (NDArray l : losses) {
            total += l.getFloat();
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
