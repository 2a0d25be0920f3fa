package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SeedRangeTest {

    @Test
    void widensTheSeedsRangeByTwiceItsWidthOnEachSide() {
        SeedRange r = SeedRange.of(0.31, 0.30, 0.32); // width 0.02
        assertEquals(0.26, r.low(), 1e-12);
        assertEquals(0.36, r.high(), 1e-12);
        assertTrue(r.contains(0.26));
        assertTrue(r.contains(0.36));
        assertTrue(r.below(0.25));
        assertTrue(r.above(0.37));
        assertFalse(r.contains(0.37));
        assertFalse(r.below(0.30));
        assertEquals("[0.2600, 0.3600]", r.toString());
        assertEquals("below", r.verdict(0.25));
        assertEquals("within", r.verdict(0.3));
        assertEquals("above", r.verdict(0.37));
        assertEquals("not comparable with", r.verdict(Double.NaN));
    }

    @Test
    void equalSeedsGiveARangeOfOnePoint() {
        SeedRange r = SeedRange.of(0.5, 0.5);
        assertEquals(0.5, r.low());
        assertEquals(0.5, r.high());
        assertTrue(r.contains(0.5));
        assertTrue(r.above(0.5000001));
    }

    @Test
    void aNaNResultGivesARangeThatHoldsNothing() {
        SeedRange r = SeedRange.of(0.3, Double.NaN);
        assertFalse(r.contains(0.3));
        assertFalse(r.below(0.0));
        assertFalse(r.above(1.0));
    }

    @Test
    void refusesFewerThanTwoSeeds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SeedRange.of(0.5));
        assertTrue(e.getMessage().contains("two seeds or more"));
        assertThrows(IllegalArgumentException.class, () -> SeedRange.of((double[]) null));
    }
}
