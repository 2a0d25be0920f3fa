package org.d2l.multigpu.lesson;

import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.PairList;

/**
 * How far apart the parameters of two networks of one architecture are (every parameter DJL lists, BatchNorm's
 * running statistics included).
 */
public final class ParameterGap {

    private ParameterGap() {}

    /** The largest absolute difference between a parameter of {@code a} and the same parameter of {@code b}. */
    public static double largest(Block a, Block b) {
        return compare(a, b)[0];
    }

    /** The distance of {@code b}'s parameters from {@code a}'s, relative to {@code a}'s: |b - a| / |a|, all as one vector. */
    public static double relative(Block a, Block b) {
        double[] c = compare(a, b);
        return Math.sqrt(c[1] / c[2]);
    }

    /** The largest absolute difference, the squared distance and the squared norm of {@code a}, over all parameters. */
    private static double[] compare(Block a, Block b) {
        PairList<String, Parameter> p = a.getParameters();
        PairList<String, Parameter> q = b.getParameters();
        if (p.size() != q.size()) {
            throw new IllegalArgumentException("The networks have " + p.size() + " and " + q.size()
                    + " parameters: compare networks of the same architecture.");
        }
        double max = 0;
        double squared = 0;
        double norm = 0;
        for (int i = 0; i < p.size(); i++) {
            float[] x = p.valueAt(i).getArray().toFloatArray();
            float[] y = q.valueAt(i).getArray().toFloatArray();
            if (x.length != y.length) {
                throw new IllegalArgumentException("Parameter " + p.keyAt(i) + " has " + x.length + " values in one "
                        + "network and " + y.length + " in the other: compare networks of the same architecture.");
            }
            for (int j = 0; j < x.length; j++) {
                double d = (double) y[j] - x[j];
                max = Math.max(max, Math.abs(d));
                squared += d * d;
                norm += (double) x[j] * x[j];
            }
        }
        return new double[] {max, squared, norm};
    }
}
