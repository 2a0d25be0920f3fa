package org.d2l.multigpu.plot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A linear axis range with "nice" tick values (1, 2 or 5 times a power of ten) and their labels. */
final class AxisScale {

    private final double min;
    private final double max;
    private final double step;

    private AxisScale(double min, double max, double step) {
        this.min = min;
        this.max = max;
        this.step = step;
    }

    /** Fits a range around [lo, hi] (non-finite values ignored), padded by a fraction of its span. */
    static AxisScale fit(double lo, double hi, double padFraction, int targetTicks) {
        return fit(lo, hi, padFraction, targetTicks, false);
    }

    /** Like {@link #fit(double, double, double, int)}; with integral set, ticks are whole numbers (e.g. epochs). */
    static AxisScale fit(double lo, double hi, double padFraction, int targetTicks, boolean integral) {
        if (!Double.isFinite(lo) || !Double.isFinite(hi)) {
            lo = 0;
            hi = 1;
        }
        if (hi < lo) {
            double t = lo;
            lo = hi;
            hi = t;
        }
        if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
            double half = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 0.5;
            lo -= half;
            hi += half;
        } else {
            double pad = (hi - lo) * padFraction;
            lo -= pad;
            hi += pad;
        }
        double step = niceStep((hi - lo) / Math.max(1, targetTicks));
        return new AxisScale(lo, hi, integral ? Math.max(1, step) : step);
    }

    /** Smallest value shown. */
    double min() {
        return min;
    }

    /** Largest value shown. */
    double max() {
        return max;
    }

    /** Distance between ticks. */
    double step() {
        return step;
    }

    /** Tick values inside the range, in increasing order. */
    List<Double> ticks() {
        List<Double> ticks = new ArrayList<>();
        long first = (long) Math.ceil(min / step - 1e-9);
        for (long k = first; k * step <= max + step * 1e-9 && ticks.size() < 100; k++) {
            double v = k * step;
            ticks.add(Math.abs(v) < step * 1e-9 ? 0.0 : v);
        }
        return ticks;
    }

    /** Maps a value to a pixel position between p0 (at min) and p1 (at max). */
    double toPixel(double value, double p0, double p1) {
        return p0 + (value - min) / (max - min) * (p1 - p0);
    }

    /** Formats a tick value with as many decimals as the step needs. */
    String label(double value) {
        double magnitude = Math.max(Math.abs(min), Math.abs(max));
        if (magnitude >= 1e6 || step < 1e-4) {
            return String.format(Locale.ROOT, "%.3g", value);
        }
        int decimals = Math.max(0, (int) -Math.floor(Math.log10(step) + 1e-9));
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / power;
        double nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
        return nice * power;
    }
}
