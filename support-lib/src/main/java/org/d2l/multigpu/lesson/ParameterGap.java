package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.PairList;

/** How far apart the parameters of two networks of one architecture are. */
public final class ParameterGap {

    private ParameterGap() {}

    /** The largest absolute difference between a parameter of {@code a} and the same parameter of {@code b}. */
    public static double largest(Block a, Block b) {
        PairList<String, Parameter> p = a.getParameters();
        PairList<String, Parameter> q = b.getParameters();
        if (p.size() != q.size()) {
            throw new IllegalArgumentException("The networks have " + p.size() + " and " + q.size()
                    + " parameters: compare networks of the same architecture.");
        }
        double max = 0;
        for (int i = 0; i < p.size(); i++) {
            NDArray x = p.valueAt(i).getArray();
            NDArray y = q.valueAt(i).getArray();
            if (!x.getShape().equals(y.getShape())) {
                throw new IllegalArgumentException("Parameter " + p.keyAt(i) + " has shape " + x.getShape() + " in one "
                        + "network and " + y.getShape() + " in the other: compare networks of the same architecture.");
            }
            try (NDArray d = x.sub(y.toDevice(x.getDevice(), false)).abs().max()) {
                max = Math.max(max, d.getFloat());
            }
        }
        return max;
    }
}
