package org.d2l.multigpu.plot;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** One named line of a {@link LinePlot}: x and y values of equal length; NaN or null values leave a gap. */
public final class Series {

    private final String name;
    private final double[] x;
    private final double[] y;

    private Series(String name, double[] x, double[] y) {
        this.name = name;
        this.x = x;
        this.y = y;
    }

    /** Creates a series from arrays, copying them, after checking the name and the lengths. */
    public static Series of(String name, double[] x, double[] y) {
        String n = checkName(name);
        if (x == null || y == null) {
            throw new IllegalArgumentException("series '" + n + "': x and y must not be null");
        }
        checkLengths(n, x.length, y.length);
        return new Series(n, x.clone(), y.clone());
    }

    /** Creates a series from lists of numbers (a null element becomes NaN, i.e. a gap). */
    public static Series of(String name, List<? extends Number> x, List<? extends Number> y) {
        String n = checkName(name);
        if (x == null || y == null) {
            throw new IllegalArgumentException("series '" + n + "': x and y must not be null");
        }
        checkLengths(n, x.size(), y.size());
        return new Series(n, toArray(x), toArray(y));
    }

    /** Creates a series whose x values are 1, 2, ..., y.length (epochs counted from 1). */
    public static Series ofEpochs(String name, double[] y) {
        if (y == null) {
            throw new IllegalArgumentException("series '" + checkName(name) + "': y must not be null");
        }
        double[] x = new double[y.length];
        Arrays.setAll(x, i -> i + 1);
        return of(name, x, y);
    }

    /** The name shown in the legend. */
    public String name() {
        return name;
    }

    /** A copy of the x values. */
    public double[] x() {
        return x.clone();
    }

    /** A copy of the y values. */
    public double[] y() {
        return y.clone();
    }

    /** The number of points. */
    public int size() {
        return x.length;
    }

    /** The x value of point i. */
    public double x(int i) {
        return x[i];
    }

    /** The y value of point i. */
    public double y(int i) {
        return y[i];
    }

    /** Whether both coordinates of point i are finite numbers. */
    public boolean isFinite(int i) {
        return Double.isFinite(x[i]) && Double.isFinite(y[i]);
    }

    @Override
    public String toString() {
        return "Series[" + name + ", " + x.length + " points]";
    }

    private static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("series name must be a non-empty string, got "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        return name.strip();
    }

    private static void checkLengths(String name, int xs, int ys) {
        if (xs != ys) {
            throw new IllegalArgumentException("series '" + name + "': x has " + xs
                    + " values but y has " + ys + "; they must have the same length");
        }
        if (xs == 0) {
            throw new IllegalArgumentException("series '" + name + "' has no points");
        }
    }

    private static double[] toArray(List<? extends Number> values) {
        double[] out = new double[values.size()];
        int i = 0;
        for (Number v : values) {
            out[i++] = Objects.requireNonNullElse(v, Double.NaN).doubleValue();
        }
        return out;
    }
}
