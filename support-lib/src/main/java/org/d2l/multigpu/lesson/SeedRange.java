package org.d2l.multigpu.lesson;

import java.util.Arrays;
import java.util.Locale;

/**
 * The range of a result over runs that differ only in their seed, widened by twice its width on each
 * side: for normally distributed results a further run of the same training lands inside it about 95%
 * of the time, so a run outside it differs by more than chance.
 */
public record SeedRange(double low, double high) {

    /**
     * The widened range of {@code values}, one result per seed (two at least); a NaN among them gives a
     * range of NaN ends, which holds nothing and has nothing below or above it.
     */
    public static SeedRange of(double... values) {
        if (values == null || values.length < 2) {
            throw new IllegalArgumentException("A seed range needs the results of two seeds or more, got "
                    + Arrays.toString(values) + ": train the seeds' runs first.");
        }
        double lo = Arrays.stream(values).min().getAsDouble();
        double hi = Arrays.stream(values).max().getAsDouble();
        return new SeedRange(lo - 2 * (hi - lo), hi + 2 * (hi - lo));
    }

    /** Whether {@code x} lies within the range, its ends included. */
    public boolean contains(double x) {
        return x >= low && x <= high;
    }

    /** Whether {@code x} lies below the range. */
    public boolean below(double x) {
        return x < low;
    }

    /** Whether {@code x} lies above the range. */
    public boolean above(double x) {
        return x > high;
    }

    /** Where {@code x} lies: "below", "within" or "above" the range ("not comparable with" for a NaN). */
    public String verdict(double x) {
        return below(x) ? "below" : above(x) ? "above" : contains(x) ? "within" : "not comparable with";
    }

    /** The range as [low, high], four decimals each. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "[%.4f, %.4f]", low, high);
    }
}
