package org.d2l.multigpu.lesson;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.runtime.Scalars;

/**
 * The functional LeNet of {@link LeNet#lenet} cut into its four layers, each run from its tensors laid end to end in
 * one flat array (as sharded training keeps them) and differentiated by recomputing the layer under a gradient
 * collector, so that no graph holds a layer's weights between its forward and its backward pass.
 */
public final class LeNetLayers {

    /** The gradients of one layer: of its input (null for the first layer), of its flat weights, and the loss (last layer only, else 0). */
    public record Grads(NDArray input, NDArray weights, float loss) {}

    private static final Shape[] SHAPES = {new Shape(20, 1, 3, 3), new Shape(20), new Shape(50, 20, 5, 5),
        new Shape(50), new Shape(800, 128), new Shape(128), new Shape(128, 10), new Shape(10)};
    private static final int LAYERS = SHAPES.length / 2;
    private static final Loss LOSS = Loss.softmaxCrossEntropyLoss();

    private LeNetLayers() {}

    /** The number of layers, 4: two convolutions, two dense layers; layer l has tensors 2l (weight) and 2l + 1 (bias). */
    public static int count() {
        return LAYERS;
    }

    /** The number of parameters of layer {@code l}. */
    public static long size(int l) {
        checkLayer(l);
        return SHAPES[2 * l].size() + SHAPES[2 * l + 1].size();
    }

    /** The parameters of every layer, in order. */
    public static long[] sizes() {
        long[] s = new long[LAYERS];
        for (int l = 0; l < LAYERS; l++) {
            s[l] = size(l);
        }
        return s;
    }

    /** Layer {@code l}'s two tensors of {@code tensors} (W1, b1, ..., W4, b4, or their gradients) as one new flat array. */
    public static NDArray flatten(List<NDArray> tensors, int l) {
        checkLayer(l);
        if (tensors.size() != SHAPES.length) {
            throw new IllegalArgumentException("LeNet has " + SHAPES.length + " tensors (W1, b1, ..., W4, b4), got "
                    + tensors.size() + ": pass the list LeNet.initParams returns, or their gradients.");
        }
        for (int j = 2 * l; j <= 2 * l + 1; j++) {
            if (tensors.get(j) == null || !tensors.get(j).getShape().equals(SHAPES[j])) {
                throw new IllegalArgumentException("tensor " + j + " of LeNet has shape " + SHAPES[j] + ", got "
                        + (tensors.get(j) == null ? "none (no gradient yet?)" : tensors.get(j).getShape()) + ".");
            }
        }
        return joined(tensors.get(2 * l), tensors.get(2 * l + 1));
    }

    /** A layer's weight and bias laid end to end in one new flat array. */
    private static NDArray joined(NDArray weight, NDArray bias) {
        try (NDArray w = weight.reshape(-1); NDArray b = bias.reshape(-1)) {
            return NDArrays.concat(new NDList(w, b));
        }
    }

    /**
     * One training step's forward and backward pass, layer by layer, on replica r's examples {@code xs.get(r)} and
     * labels {@code ys.get(r)} of a global batch of {@code batch} examples: {@code weights} gives layer l's whole flat
     * weights, one array per replica, before its forward pass and again before its backward pass; {@code gradients}
     * takes layer l's weight gradients, one per replica, as soon as they exist (and must close them); with
     * {@code dropWeights} the arrays {@code weights} gave are closed as soon as the layer is done (gathered copies).
     * Each replica's loss is the mean over its examples weighted by its share of the batch; returns their sum.
     */
    public static float step(List<NDArray> xs, List<NDArray> ys, long batch, IntFunction<List<NDArray>> weights,
            BiConsumer<Integer, List<NDArray>> gradients, boolean dropWeights) {
        int replicas = xs.size();
        List<List<NDArray>> acts = new ArrayList<>(); // per replica: each layer's input
        for (NDArray x : xs) {
            acts.add(new ArrayList<>(List.of(x)));
        }
        try (NoGrad off = NoGrad.scope()) {
            for (int l = 0; l < LAYERS; l++) {
                List<NDArray> w = weights.apply(l);
                for (int r = 0; r < replicas; r++) {
                    acts.get(r).add(forward(l, acts.get(r).get(l), w.get(r)));
                }
                if (dropWeights) {
                    w.forEach(NDArray::close);
                }
            }
        }
        NDArray[] dOut = new NDArray[replicas]; // per replica: the loss's gradient with respect to the layer's output
        float loss = 0;
        for (int l = LAYERS - 1; l >= 0; l--) {
            List<NDArray> w = weights.apply(l);
            List<NDArray> g = new ArrayList<>();
            for (int r = 0; r < replicas; r++) {
                NDArray x = acts.get(r).get(l);
                Grads d = l == LAYERS - 1 ? backwardLoss(x, w.get(r), ys.get(r), (float) ys.get(r).size() / batch)
                        : backward(l, x, w.get(r), dOut[r]);
                dOut[r] = d.input();
                g.add(d.weights());
                loss += d.loss();
            }
            gradients.accept(l, g);
            if (dropWeights) {
                w.forEach(NDArray::close);
            }
        }
        return loss;
    }

    /**
     * The largest difference between {@code flatGrads} (one flat array per layer) and the gradients of the whole
     * network's ordinary backward pass: {@link LeNet#lenet} under {@code params} (copied) on {@code x} and {@code y},
     * under one gradient collector, the loss the mean over the examples.
     */
    public static double wholeNetworkGap(List<NDArray> params, NDArray x, NDArray y, List<NDArray> flatGrads) {
        if (flatGrads.size() != LAYERS) {
            throw new IllegalArgumentException("LeNet has " + LAYERS + " layers, got " + flatGrads.size() + " gradients.");
        }
        List<NDArray> w = new ArrayList<>();
        for (NDArray p : params) {
            NDArray c = p.duplicate();
            c.setRequiresGradient(true);
            w.add(c);
        }
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            gc.backward(LOSS.evaluate(new NDList(y), new NDList(LeNet.lenet(x, w))));
        }
        List<NDArray> grads = new ArrayList<>();
        w.forEach(t -> grads.add(t.getGradient()));
        double gap = 0;
        for (int l = 0; l < LAYERS; l++) {
            try (NDArray whole = flatten(grads, l); NDArray d = whole.sub(flatGrads.get(l)).abs()) {
                gap = Math.max(gap, d.max().getFloat());
            }
        }
        grads.forEach(NDArray::close);
        w.forEach(NDArray::close);
        return gap;
    }

    /** Layer {@code l}'s output for input {@code x} under its flat weights {@code flat}. */
    public static NDArray forward(int l, NDArray x, NDArray flat) {
        List<NDArray> w = unflatten(flat, l);
        try {
            return layer(l, x, w);
        } finally {
            w.forEach(NDArray::close);
        }
    }

    /**
     * Recomputes layer {@code l} (not the last) on {@code x} and back-propagates {@code dOut}, the loss's gradient
     * with respect to its output: the gradients of its input and of its flat weights.
     */
    public static Grads backward(int l, NDArray x, NDArray flat, NDArray dOut) {
        if (l == LAYERS - 1) {
            throw new IllegalArgumentException("the last layer's gradient comes from the loss: call backwardLoss.");
        }
        return differentiate(l, x, flat, out -> out.mul(dOut).sum());
    }

    /**
     * Recomputes the last layer on {@code x} and back-propagates its softmax cross-entropy loss against {@code y},
     * the mean over the examples given times {@code weight} (a replica's share of the global batch).
     */
    public static Grads backwardLoss(NDArray x, NDArray flat, NDArray y, float weight) {
        return differentiate(LAYERS - 1, x, flat,
                out -> LOSS.evaluate(new NDList(y), new NDList(out)).mul(Scalars.of(out, weight)));
    }

    private static Grads differentiate(int l, NDArray x, NDArray flat,
            Function<NDArray, NDArray> target) {
        List<NDArray> w = unflatten(flat, l);
        w.forEach(t -> t.setRequiresGradient(true));
        if (l > 0) {
            x.setRequiresGradient(true);
        }
        float loss;
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            NDArray t = target.apply(layer(l, x, w)); // for l below the last: sum(out * dOut), whose gradient is dOut
            loss = l == LAYERS - 1 ? t.getFloat() : 0f;
            gc.backward(t);
        }
        List<NDArray> gw = new ArrayList<>();
        w.forEach(t -> gw.add(t.getGradient()));
        NDArray dW = joined(gw.get(0), gw.get(1));
        gw.forEach(NDArray::close);
        w.forEach(NDArray::close);
        return new Grads(l > 0 ? x.getGradient() : null, dW, loss);
    }

    private static List<NDArray> unflatten(NDArray flat, int l) {
        checkLayer(l);
        if (flat.getShape().dimension() != 1 || flat.size() != size(l)) {
            throw new IllegalArgumentException("layer " + l + " of LeNet takes a flat array of " + size(l)
                    + " elements, got shape " + flat.getShape() + ".");
        }
        List<NDArray> w = new ArrayList<>();
        long at = 0;
        for (int j = 2 * l; j <= 2 * l + 1; j++) {
            try (NDArray slice = flat.get(new NDIndex("{}:{}", at, at + SHAPES[j].size()))) {
                w.add(slice.reshape(SHAPES[j]));
            }
            at += SHAPES[j].size();
        }
        return w;
    }

    private static NDArray layer(int l, NDArray x, List<NDArray> w) {
        return switch (l) {
            case 0 -> pool(Activation.relu(Conv2d.conv2d(x, w.get(0), w.get(1)).head()));
            case 1 -> pool(Activation.relu(Conv2d.conv2d(x, w.get(0), w.get(1)).head())).reshape(x.getShape().get(0), -1);
            case 2 -> Activation.relu(x.matMul(w.get(0)).add(w.get(1)));
            default -> x.matMul(w.get(0)).add(w.get(1));
        };
    }

    private static NDArray pool(NDArray x) {
        return Pool.avgPool2d(x, new Shape(2, 2), new Shape(2, 2), new Shape(0, 0), false, true);
    }

    private static void checkLayer(int l) {
        if (l < 0 || l >= LAYERS) {
            throw new IllegalArgumentException("LeNet has layers 0 to " + (LAYERS - 1) + ", not " + l + ".");
        }
    }
}
