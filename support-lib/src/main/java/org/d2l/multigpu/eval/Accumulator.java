package org.d2l.multigpu.eval;

import java.util.Arrays;

/** Sums over {@code n} variables, as the book's {@code Accumulator}. */
public class Accumulator {

    private final double[] data;

    /** Creates an accumulator of {@code n} sums, all zero. */
    public Accumulator(int n) {
        data = new double[n];
    }

    /** Adds {@code args[i]} to sum {@code i}. */
    public void add(double... args) {
        if (args.length != data.length) {
            throw new IllegalArgumentException(
                    "Accumulator holds " + data.length + " sums, got " + args.length + " values");
        }
        for (int i = 0; i < data.length; i++) {
            data[i] += args[i];
        }
    }

    /** Sets every sum back to zero. */
    public void reset() {
        Arrays.fill(data, 0);
    }

    /** Sum {@code i}. */
    public double get(int i) {
        return data[i];
    }
}
