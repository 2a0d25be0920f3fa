package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.loss.Loss;
import ai.djl.util.Pair;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How many SGD updates pure float16 loses: for each learning rate, of the weights whose float32
 * value changes under {@code w - lr * g} (g the float32 gradient of one minibatch), the fraction
 * whose float16 value does not change at all when the same update is applied to the float16 weight
 * and the result rounded to float16, as a pure-float16 optimizer stores it.
 */
public final class LostUpdates {

    private final long weights;
    private final Map<Float, long[]> counts;

    /** Counts per learning rate: weights changed in float32, and of those unchanged in float16. */
    LostUpdates(long weights, Map<Float, long[]> counts) {
        this.weights = weights;
        this.counts = counts;
    }

    /**
     * Measures, for every learning rate of {@code lrs}, the float16 updates lost in one SGD step of
     * {@code net} (float32, initialised) on the minibatch ({@code x}, {@code y}); {@code net} is not changed.
     */
    public static LostUpdates measure(Block net, NDArray x, NDArray y, Loss loss, float... lrs) {
        if (lrs.length == 0) {
            throw new IllegalArgumentException("Give at least one learning rate, e.g. measure(net, x, y, loss, 0.1f, 0.01f).");
        }
        Map<Float, long[]> counts = new LinkedHashMap<>();
        long weights = 0;
        try (NDManager m = NDManager.newBaseManager(x.getDevice())) {
            Map<String, NDArray> grads = Gradients.of(net, x, y, loss, DataType.FLOAT32, 1f, m);
            Map<String, NDArray> w32 = new LinkedHashMap<>();
            for (Pair<String, Parameter> p : net.getParameters()) {
                if (grads.containsKey(p.getKey())) {
                    w32.put(p.getKey(), p.getValue().getArray());
                    weights += p.getValue().getArray().size();
                }
            }
            for (float lr : lrs) {
                if (!(lr > 0) || Float.isInfinite(lr)) {
                    throw new IllegalArgumentException("A learning rate must be positive and finite, got " + lr + ".");
                }
                long changed = 0;
                long lost = 0;
                try (NDManager step = m.newSubManager()) {
                    for (Map.Entry<String, NDArray> e : w32.entrySet()) {
                        NDArray w = e.getValue();
                        NDArray update = grads.get(e.getKey()).mul(lr);
                        update.attach(step);
                        NDArray moved = w.sub(update).neq(w);
                        moved.attach(step);
                        NDArray w16 = Float16.round(w);
                        w16.attach(step);
                        NDArray after = Float16.round(w16.sub(update));
                        after.attach(step);
                        NDArray stuck = moved.logicalAnd(after.eq(w16));
                        stuck.attach(step);
                        changed += count(moved);
                        lost += count(stuck);
                    }
                }
                counts.put(lr, new long[] {changed, lost});
            }
        }
        return new LostUpdates(weights, counts);
    }

    private static long count(NDArray mask) {
        try (NDArray n = mask.sum()) {
            return n.toType(DataType.INT64, false).getLong();
        }
    }

    /** The number of trained weights. */
    public long weights() {
        return weights;
    }

    /** The number of weights whose float32 value changes at learning rate {@code lr}. */
    public long changed(float lr) {
        return get(lr)[0];
    }

    /** Of the weights whose float32 value changes at {@code lr}, the fraction whose float16 value stays as it was. */
    public double lostFraction(float lr) {
        long[] c = get(lr);
        return c[0] == 0 ? 0 : (double) c[1] / c[0];
    }

    /** Whether the lost fraction grows (or stays) at every step from a larger learning rate to a smaller one. */
    public boolean growsAsLearningRateFalls() {
        double previous = -1;
        for (float lr : counts.keySet().stream().sorted(java.util.Comparator.reverseOrder()).toList()) {
            if (lostFraction(lr) < previous) {
                return false;
            }
            previous = lostFraction(lr);
        }
        return true;
    }

    private long[] get(float lr) {
        long[] c = counts.get(lr);
        if (c == null) {
            throw new IllegalArgumentException("Learning rate " + lr + " was not measured; measured: " + counts.keySet() + ".");
        }
        return c;
    }

    /** One line per learning rate: weights changed in float32 and, of these, unchanged in float16. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "one SGD step on %d weights:%n%14s %18s %24s%n", weights, "learning rate", "float32 changes",
                "float16 stays unchanged"));
        for (float lr : counts.keySet()) {
            sb.append(String.format(Locale.ROOT, "%14s %18d %14d (%5.1f%%)%n", trim(lr), changed(lr), get(lr)[1],
                    100 * lostFraction(lr)));
        }
        return sb.toString();
    }

    private static String trim(float lr) {
        return new java.math.BigDecimal(Float.toString(lr)).stripTrailingZeros().toPlainString();
    }
}
