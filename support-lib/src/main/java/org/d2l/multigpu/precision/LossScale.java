package org.d2l.multigpu.precision;

import java.util.Locale;

/**
 * The running loss scale of one training run (made by {@link LossScaler#start()}): the factor the loss
 * is multiplied by now, and the steps skipped so far because a gradient overflowed.
 */
public final class LossScale {

    private final int growthInterval;
    private float scale;
    private int goodSteps;
    private long skipped;

    LossScale(float initialScale, int growthInterval) {
        this.scale = initialScale;
        this.growthInterval = growthInterval;
    }

    /** The factor the loss is multiplied by before the backward pass now. */
    public float scale() {
        return scale;
    }

    /** The number of steps skipped so far because a gradient overflowed. */
    public long skippedSteps() {
        return skipped;
    }

    /** The good steps in a row since the scale last changed. */
    public int goodSteps() {
        return goodSteps;
    }

    /** Puts the running scale back as a checkpoint saved it: the scale, the good steps in a row, the skipped steps. */
    public void restore(float scale, int goodSteps, long skipped) {
        if (!(scale > 0) || goodSteps < 0 || skipped < 0) {
            throw new IllegalArgumentException("Not a loss scale state: scale " + scale + ", " + goodSteps
                    + " good steps, " + skipped + " skipped.");
        }
        this.scale = scale;
        this.goodSteps = goodSteps;
        this.skipped = skipped;
    }

    /** Records a step whose gradients were all finite: after enough of them in a row the scale doubles. */
    void stepTaken() {
        if (++goodSteps >= growthInterval) {
            goodSteps = 0;
            if (Float.isFinite(scale * 2f)) {
                scale *= 2f;
            }
        }
    }

    /** Records a skipped step (a gradient was infinite or NaN): the scale halves. */
    void stepSkipped() {
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
