package org.d2l.multigpu.parallel;

import java.util.Locale;

/**
 * Dynamic loss scaling for float16 training, as PyTorch's {@code GradScaler} does it: the loss is
 * multiplied by a scale before the backward pass so that small gradients do not flush to zero in
 * float16; after {@code growthInterval} good steps in a row the scale doubles, and a step whose
 * gradients hold an infinity or NaN is skipped and halves the scale.
 */
public final class LossScaler {

    /** PyTorch's defaults: start at 2^16, double after 2000 good steps. */
    public static final float DEFAULT_SCALE = 65536f;
    /** The number of good steps in a row after which the scale doubles, PyTorch's default. */
    public static final int DEFAULT_GROWTH_INTERVAL = 2000;

    private final int growthInterval;
    private float scale;
    private int goodSteps;
    private long skipped;

    private LossScaler(float initialScale, int growthInterval) {
        if (!(initialScale > 0) || Float.isInfinite(initialScale)) {
            throw new IllegalArgumentException("The initial loss scale must be a positive finite number, got "
                    + initialScale + ": use LossScaler.DEFAULT_SCALE (65536) unless you know better.");
        }
        if (growthInterval < 1) {
            throw new IllegalArgumentException("The growth interval must be at least 1 step, got " + growthInterval
                    + ": use LossScaler.DEFAULT_GROWTH_INTERVAL (2000).");
        }
        this.scale = initialScale;
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

    /** The factor the loss is multiplied by before the backward pass now. */
    public float scale() {
        return scale;
    }

    /** The number of steps skipped so far because a gradient overflowed. */
    public long skippedSteps() {
        return skipped;
    }

    /** Records a step whose gradients were all finite: after enough of them in a row the scale doubles. */
    public void stepTaken() {
        if (++goodSteps >= growthInterval) {
            goodSteps = 0;
            if (Float.isFinite(scale * 2f)) {
                scale *= 2f;
            }
        }
    }

    /** Records a skipped step (a gradient was infinite or NaN): the scale halves. */
    public void stepSkipped() {
        skipped++;
        goodSteps = 0;
        scale = Math.max(scale / 2f, Float.MIN_NORMAL);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "loss scale %.0f (doubles after %d good steps), %d step(s) skipped",
                scale, growthInterval, skipped);
    }
}
