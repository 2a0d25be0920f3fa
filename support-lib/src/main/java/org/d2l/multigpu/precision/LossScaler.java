package org.d2l.multigpu.precision;

import java.util.Locale;

/**
 * Dynamic loss scaling for float16 training, as PyTorch's {@code GradScaler} does it: the loss is
 * multiplied by a scale before the backward pass so that small gradients do not flush to zero in
 * float16; after {@code growthInterval} good steps in a row the scale doubles, and a step whose
 * gradients hold an infinity or NaN is skipped and halves the scale. This is a setting: each trainer
 * keeps its own running {@link LossScale}, so one scaler can configure any number of runs.
 */
public final class LossScaler {

    /** PyTorch's defaults: start at 2^16, double after 2000 good steps. */
    public static final float DEFAULT_SCALE = 65536f;
    /** The number of good steps in a row after which the scale doubles, PyTorch's default. */
    public static final int DEFAULT_GROWTH_INTERVAL = 2000;

    private final float initialScale;
    private final int growthInterval;

    private LossScaler(float initialScale, int growthInterval) {
        if (!(initialScale > 0) || Float.isInfinite(initialScale)) {
            throw new IllegalArgumentException("The initial loss scale must be a positive finite number, got "
                    + initialScale + ": use LossScaler.DEFAULT_SCALE (65536) unless you know better.");
        }
        if (growthInterval < 1) {
            throw new IllegalArgumentException("The growth interval must be at least 1 step, got " + growthInterval
                    + ": use LossScaler.DEFAULT_GROWTH_INTERVAL (2000).");
        }
        this.initialScale = initialScale;
        this.growthInterval = growthInterval;
    }

    /** A scaler with PyTorch's defaults (scale 65536, doubled after 2000 good steps). */
    public static LossScaler dynamic() {
        return new LossScaler(DEFAULT_SCALE, DEFAULT_GROWTH_INTERVAL);
    }

    /** A scaler starting at {@code initialScale} that doubles after {@code growthInterval} good steps in a row. */
    public static LossScaler of(float initialScale, int growthInterval) {
        return new LossScaler(initialScale, growthInterval);
    }

    /** The scale a run starts from. */
    public float initialScale() {
        return initialScale;
    }

    /** A fresh running scale for one training run, starting at {@link #initialScale()}. */
    public LossScale start() {
        return new LossScale(initialScale, growthInterval);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "loss scaling from %.0f, doubled after %d good steps, halved on overflow",
                initialScale, growthInterval);
    }
}
