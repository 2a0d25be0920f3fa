package org.d2l.multigpu.lesson;

import ai.djl.training.dataset.Batch;

/**
 * What a model that ignores its input scores at most on a labelled set, the share of its largest class,
 * and the bar a run must pass to have learned: that share plus 3 binomial standard errors of an
 * accuracy measured on that many examples.
 */
public record ChanceLevel(double largestShare, long examples) {

    /** The chance level of the labels of {@code data}, whose labels are class numbers 0 to {@code numClasses - 1}. */
    public static ChanceLevel of(Iterable<Batch> data, int numClasses) {
        long[] count = new long[numClasses];
        long n = 0;
        for (Batch batch : data) {
            try (batch) {
                for (float label : batch.getLabels().head().toFloatArray()) {
                    int c = (int) label;
                    if (c < 0 || c >= numClasses || c != label) {
                        throw new IllegalArgumentException("Label " + label + " is not a class number from 0 to "
                                + (numClasses - 1) + ": give the number of classes the data set has.");
                    }
                    count[c]++;
                    n++;
                }
            }
        }
        if (n == 0) {
            throw new IllegalArgumentException("The data set has no examples, so it has no chance level.");
        }
        long largest = 0;
        for (long c : count) {
            largest = Math.max(largest, c);
        }
        return new ChanceLevel(largest / (double) n, n);
    }

    /** The largest class's share plus 3 binomial standard errors of an accuracy on {@link #examples} examples. */
    public double bar() {
        return largestShare + 3 * Math.sqrt(largestShare * (1 - largestShare) / examples);
    }
}
