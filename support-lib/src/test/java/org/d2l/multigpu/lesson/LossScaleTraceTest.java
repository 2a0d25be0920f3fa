package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LossScaleTraceTest {

    private static LossScaleTrace halvingTwiceThenTraining() {
        LossScaleTrace t = new LossScaleTrace();
        t.add(0x1p24f, true, Double.NaN);
        t.add(0x1p23f, true, Double.NaN);
        for (int i = 0; i < 30; i++) {
            t.add(0x1p22f, false, 2.0 - i * 0.05);
        }
        return t;
    }

    @Test
    void theScaleSettlesAfterTheLastSkippedStep() {
        LossScaleTrace t = halvingTwiceThenTraining();
        assertEquals(2, t.skipped());
        assertEquals(2, t.settledAt());
        assertEquals(0x1p22f, t.settledScale());
        assertEquals(2.0 - 0.05 * 2, t.meanLoss(2, 5), 1e-12);
        assertTrue(t.meanLoss(22, 10) < t.meanLoss(2, 10));
        assertEquals(2.0, t.meanLoss(0, 3), 1e-12, "skipped steps carry no loss");
        assertEquals(2.0, t.meanLoss(-8, 11), 1e-12, "indices before the first step are dropped");
        assertTrue(Double.isNaN(t.meanLoss(40, 10)), "no steps: no mean");
    }

    @Test
    void thePrintedStoryShowsEverySkipAndTheSettledScale() {
        String s = halvingTwiceThenTraining().toString();
        assertTrue(s.contains("2^24") && s.contains("2^23") && s.contains("overflow: skipped"), s);
        assertTrue(s.contains("2 of 32 steps skipped; from step 3 on none was (scale 2^22 there)"), s);
        assertTrue(s.lines().count() < 20, "the trained steps are thinned out: " + s);
        assertTrue(s.contains("from here on one step in 3 is shown"), "and the table says so: " + s);
    }

    @Test
    void aSkipNotFollowedByHalfTheScaleIsCounted() {
        assertEquals(0, halvingTwiceThenTraining().skipsNotHalved());
        LossScaleTrace t = halvingTwiceThenTraining();
        t.add(0x1p22f, true, Double.NaN);
        t.add(0x1p22f, false, 0.5);
        assertEquals(1, t.skipsNotHalved());
    }

    @Test
    void withoutSkipsTheScaleSettledAtTheStart() {
        LossScaleTrace t = new LossScaleTrace();
        t.add(65536f, false, 1.0);
        assertEquals(0, t.settledAt());
        assertEquals(65536f, t.settledScale());
    }
}
