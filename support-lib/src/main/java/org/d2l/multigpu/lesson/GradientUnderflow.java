package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * How many gradient elements float16 loses on one minibatch: the gradients are computed once in
 * float32 and once in float16 at each loss scale (forward and backward in float16, the loss in
 * float32 times the scale), and compared element by element.
 */
public final class GradientUnderflow {

    /** float16's limits as the histogram names and places its vertical lines. */
    private static final Map<String, Float> LIMITS = new LinkedHashMap<>();

    static {
        LIMITS.put("float16 smallest subnormal (6.0e-8)", Float16.SMALLEST_SUBNORMAL);
        LIMITS.put("float16 smallest normal (6.1e-5)", Float16.SMALLEST_NORMAL);
        LIMITS.put("float16 largest (65504)", Float16.MAX);
    }

    /** Width of the histogram's bins in decades of |gradient|. */
    static final double BIN = 0.25;

    private final long elements;
    private final long nonZero;
    private final Map<Float, Long> flushed;
    private final Map<Float, Long> subnormal;
    private final float[] magnitudes;

    private GradientUnderflow(long elements, long nonZero, Map<Float, Long> flushed, Map<Float, Long> subnormal,
            float[] magnitudes) {
        this.elements = elements;
        this.nonZero = nonZero;
        this.flushed = flushed;
        this.subnormal = subnormal;
        this.magnitudes = magnitudes;
    }

    /**
     * Measures the gradients of {@code loss} of {@code net} (float32, initialised) on the minibatch
     * ({@code x}, {@code y}) in float32 and in float16 at each of {@code scales}.
     */
    public static GradientUnderflow measure(Block net, NDArray x, NDArray y, Loss loss, float... scales) {
        if (scales.length == 0) {
            throw new IllegalArgumentException("Give at least one loss scale, e.g. measure(net, x, y, loss, 1f, 65536f).");
        }
        Map<Float, Long> flushed = new LinkedHashMap<>();
        Map<Float, Long> subnormal = new LinkedHashMap<>();
        long elements = 0;
        long nonZero = 0;
        List<float[]> values = new ArrayList<>();
        try (NDManager m = NDManager.newBaseManager(x.getDevice())) {
            Map<String, NDArray> g32 = Gradients.of(net, x, y, loss, DataType.FLOAT32, 1f, m);
            for (NDArray g : g32.values()) {
                elements += g.size();
                nonZero += count(g.neq(0));
                values.add(g.toFloatArray());
            }
            for (float s : scales) {
                if (!(s > 0) || Float.isInfinite(s)) {
                    throw new IllegalArgumentException("A loss scale must be positive and finite, got " + s + ".");
                }
                try (NDManager ms = m.newSubManager()) {
                    Map<String, NDArray> g16 = Gradients.of(net, x, y, loss, DataType.FLOAT16, s, ms);
                    long lost = 0;
                    long small = 0;
                    for (Map.Entry<String, NDArray> e : g16.entrySet()) {
                        NDArray was = g32.get(e.getKey()).neq(0);
                        NDArray h = e.getValue();
                        lost += count(was.logicalAnd(h.eq(0)));
                        small += count(was.logicalAnd(h.neq(0)).logicalAnd(h.abs().lt(Float16.SMALLEST_NORMAL)));
                    }
                    flushed.put(s, lost);
                    subnormal.put(s, small);
                }
            }
        }
        return new GradientUnderflow(elements, nonZero, flushed, subnormal, log10Magnitudes(values));
    }

    private static long count(NDArray mask) {
        try (mask; NDArray n = mask.sum()) {
            return n.toType(DataType.INT64, false).getLong();
        }
    }

    private static float[] log10Magnitudes(List<float[]> values) {
        int n = 0;
        for (float[] v : values) {
            for (float f : v) {
                n += f != 0 ? 1 : 0;
            }
        }
        float[] out = new float[n];
        int i = 0;
        for (float[] v : values) {
            for (float f : v) {
                if (f != 0) {
                    out[i++] = (float) Math.log10(Math.abs(f));
                }
            }
        }
        return out;
    }

    /** The number of gradient elements (of all trained parameters). */
    public long elements() {
        return elements;
    }

    /** The largest magnitude of a float32 gradient element. */
    public double largest() {
        double max = Double.NEGATIVE_INFINITY;
        for (float m : magnitudes) {
            max = Math.max(max, m);
        }
        return magnitudes.length == 0 ? 0 : Math.pow(10, max);
    }

    /** The number of gradient elements that are non-zero in float32. */
    public long nonZero() {
        return nonZero;
    }

    /** The fraction of the float32 non-zero elements that are zero when computed in float16 at loss scale {@code scale}. */
    public double flushedFraction(float scale) {
        return (double) get(flushed, scale) / nonZero;
    }

    /**
     * The fraction of the float32 non-zero elements that float16 at {@code scale} keeps only as subnormal
     * numbers (below {@link Float16#SMALLEST_NORMAL}, with fewer than 11 significant bits).
     */
    public double subnormalFraction(float scale) {
        return (double) get(subnormal, scale) / nonZero;
    }

    private long get(Map<Float, Long> counts, float scale) {
        Long c = counts.get(scale);
        if (c == null) {
            throw new IllegalArgumentException("Scale " + scale + " was not measured; measured: " + counts.keySet() + ".");
        }
        return c;
    }

    /**
     * The histogram of log10 |float32 gradient| (non-zero elements, bins of a quarter decade) at each
     * measured scale, as rows (series, log10 |gradient|, count), with float16's smallest subnormal,
     * smallest normal and largest number as vertical lines of two rows each: for
     * {@code LinePlot.of(histogram(), "log10 |gradient|", "elements", "series")}.
     */
    public Table histogram() {
        StringColumn series = StringColumn.create("series");
        DoubleColumn x = DoubleColumn.create("log10 |gradient|");
        DoubleColumn count = DoubleColumn.create("elements");
        double top = 0;
        for (float s : flushed.keySet()) {
            Map<Long, Integer> bins = new java.util.TreeMap<>();
            double shift = Math.log10(s);
            for (float m : magnitudes) {
                bins.merge((long) Math.floor((m + shift) / BIN), 1, Integer::sum);
            }
            String name = "float32 gradient x " + scaleName(s);
            for (Map.Entry<Long, Integer> b : bins.entrySet()) {
                series.append(name);
                x.append((b.getKey() + 0.5) * BIN);
                count.append(b.getValue());
                top = Math.max(top, b.getValue());
            }
        }
        for (Map.Entry<String, Float> line : LIMITS.entrySet()) {
            for (double y : new double[] {0, top}) {
                series.append(line.getKey());
                x.append(Math.log10(line.getValue()));
                count.append(y);
            }
        }
        return Table.create("gradient magnitudes", series, x, count);
    }

    /** The names of the histogram's series that are float16's limits, not data: for {@code LinePlot.guides}. */
    public static String[] limitNames() {
        return LIMITS.keySet().toArray(new String[0]);
    }

    /** A scale as a power of two when it is one ("2^16"), else as a number. */
    public static String scaleName(float scale) {
        int e = Math.getExponent(scale);
        if (scale == Math.scalb(1f, e)) {
            return e == 0 ? "1" : "2^" + e;
        }
        return String.format(Locale.ROOT, "%g", scale);
    }

    /** One line per scale: elements flushed to zero and kept only as subnormals, as fractions of the non-zero ones. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%d gradient elements, %d non-zero in float32; of these, computed in float16:%n", elements, nonZero));
        sb.append(String.format(Locale.ROOT, "%12s %18s %18s%n", "loss scale", "flushed to zero", "subnormal"));
        for (float s : flushed.keySet()) {
            sb.append(String.format(Locale.ROOT, "%12s %10d (%5.2f%%) %10d (%5.2f%%)%n", scaleName(s), flushed.get(s),
                    100 * flushedFraction(s), subnormal.get(s), 100 * subnormalFraction(s)));
        }
        return sb.toString();
    }
}
