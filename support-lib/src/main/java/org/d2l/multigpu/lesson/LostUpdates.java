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
    private final Map<Float, Map<String, long[]>> byParameter;
    private final Map<String, Long> sizes = new LinkedHashMap<>();
    private final Map<Float, double[]> updateSizes = new LinkedHashMap<>();

    /** Counts per learning rate: weights changed in float32, and of those unchanged in float16. */
    LostUpdates(long weights, Map<Float, long[]> counts) {
        this(weights, counts, Map.of());
    }

    private LostUpdates(long weights, Map<Float, long[]> counts, Map<Float, Map<String, long[]>> byParameter) {
        this.weights = weights;
        this.counts = counts;
        this.byParameter = byParameter;
    }

    private LostUpdates withSizes(Map<String, Long> parameterSizes, Map<Float, double[]> updates) {
        sizes.putAll(parameterSizes);
        updateSizes.putAll(updates);
        return this;
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
        Map<Float, Map<String, long[]>> byParameter = new LinkedHashMap<>();
        Map<String, Long> sizes = new LinkedHashMap<>();
        Map<Float, double[]> updateSizes = new LinkedHashMap<>();
        long weights = 0;
        try (NDManager m = NDManager.newBaseManager(x.getDevice())) {
            Map<String, NDArray> grads = Gradients.of(net, x, y, loss, DataType.FLOAT32, 1f, m);
            Map<String, NDArray> w32 = new LinkedHashMap<>();
            for (Pair<String, Parameter> p : net.getParameters()) {
                if (grads.containsKey(p.getKey())) {
                    w32.put(p.getKey(), p.getValue().getArray());
                    weights += p.getValue().getArray().size();
                    sizes.put(p.getKey(), p.getValue().getArray().size());
                }
            }
            for (float lr : lrs) {
                if (!(lr > 0) || Float.isInfinite(lr)) {
                    throw new IllegalArgumentException("A learning rate must be positive and finite, got " + lr + ".");
                }
                double movedSize = 0;
                double lostSize = 0;
                long changed = 0;
                long lost = 0;
                Map<String, long[]> perParameter = new LinkedHashMap<>();
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
                        movedSize += sumAbs(update, moved, step);
                        lostSize += sumAbs(update, stuck, step);
                        long[] c = {count(moved), count(stuck)};
                        perParameter.put(e.getKey(), c);
                        changed += c[0];
                        lost += c[1];
                    }
                }
                counts.put(lr, new long[] {changed, lost});
                updateSizes.put(lr, new double[] {movedSize, lostSize});
                byParameter.put(lr, perParameter);
            }
        }
        return new LostUpdates(weights, counts, byParameter).withSizes(sizes, updateSizes);
    }

    private static double sumAbs(NDArray update, NDArray mask, NDManager step) {
        NDArray kept = update.abs().mul(mask.toType(update.getDataType(), false)).sum();
        kept.attach(step);
        return kept.toType(DataType.FLOAT64, false).getDouble();
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

    /**
     * Of the weights of parameter {@code name} whose float32 value changes at {@code lr}, the fraction
     * whose float16 value stays as it was; parameters are named as {@code Block.getParameters()} names them.
     */
    public double lostFraction(float lr, String name) {
        get(lr);
        long[] c = byParameter.getOrDefault(lr, Map.of()).get(name);
        if (c == null) {
            throw new IllegalArgumentException("Parameter " + name + " was not measured; measured: "
                    + byParameter.getOrDefault(lr, Map.of()).keySet() + ".");
        }
        return c[0] == 0 ? 0 : (double) c[1] / c[0];
    }

    /**
     * Of the total size (sum of |lr g|) of the updates that change a float32 weight at {@code lr}, the
     * fraction that the lost ones make up: how much of the step pure float16 drops, not how many weights.
     */
    public double lostUpdateShare(float lr) {
        get(lr);
        double[] s = updateSizes.get(lr);
        return s == null || s[0] == 0 ? 0 : s[1] / s[0];
    }

    /** The names of the measured parameters, in the block's order. */
    public java.util.Set<String> parameters() {
        return byParameter.isEmpty() ? java.util.Set.of() : byParameter.values().iterator().next().keySet();
    }

    /** The lost fractions at {@code lr}, one per measured parameter in the block's order. */
    public double[] lostFractions(float lr) {
        return parameters().stream().mapToDouble(name -> lostFraction(lr, name)).toArray();
    }

    /** The lost fractions from the largest learning rate to the smallest, as measured. */
    public double[] lostFractionsAsLearningRateFalls() {
        return counts.keySet().stream().sorted(java.util.Comparator.reverseOrder()).mapToDouble(this::lostFraction).toArray();
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
                "one SGD step on %d weights:%n%14s %18s %24s %22s%n", weights, "learning rate", "float32 changes",
                "float16 stays unchanged", "share of the update"));
        for (float lr : counts.keySet()) {
            sb.append(String.format(Locale.ROOT, "%14s %18d %14d (%5.1f%%) %21.1f%%%n", trim(lr), changed(lr), get(lr)[1],
                    100 * lostFraction(lr), 100 * lostUpdateShare(lr)));
        }
        return sb.toString();
    }

    /** One line per parameter (its name and size) with the percentage of its changed weights that float16 loses at each learning rate. */
    public String byParameter() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-28s %9s", "lost in float16, per parameter", "weights"));
        counts.keySet().forEach(lr -> sb.append(String.format(Locale.ROOT, " %8s", "lr " + trim(lr))));
        sb.append(String.format("%n"));
        for (String name : parameters()) {
            sb.append(String.format(Locale.ROOT, "%-28s %9d", name, sizes.get(name)));
            counts.keySet().forEach(lr -> sb.append(String.format(Locale.ROOT, " %7.1f%%", 100 * lostFraction(lr, name))));
            sb.append(String.format("%n"));
        }
        return sb.toString();
    }

    private static String trim(float lr) {
        return new java.math.BigDecimal(Float.toString(lr)).stripTrailingZeros().toPlainString();
    }
}
