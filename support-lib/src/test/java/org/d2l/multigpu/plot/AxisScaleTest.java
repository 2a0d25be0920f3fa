package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AxisScaleTest {

    @Test
    void ticksAreNiceStepsInsideThePaddedRange() {
        AxisScale s = AxisScale.fit(0.42, 0.83, 0.0, 5);
        assertEquals(0.1, s.step(), 1e-12);
        List<Double> ticks = s.ticks();
        assertEquals(List.of(0.5, 0.6, 0.7, 0.8), ticks.stream().map(t -> Math.round(t * 10) / 10.0).toList());
        assertEquals(List.of("0.5", "0.6", "0.7", "0.8"), ticks.stream().map(s::label).toList());
    }

    @Test
    void epochsGetIntegerLabels() {
        AxisScale s = AxisScale.fit(1, 10, 0.03, 5);
        assertEquals(2.0, s.step(), 1e-12);
        assertEquals(List.of("2", "4", "6", "8", "10"), s.ticks().stream().map(s::label).toList());
    }

    @Test
    void aConstantSeriesStillGetsARangeAroundItsValue() {
        AxisScale s = AxisScale.fit(3, 3, 0.05, 5);
        assertTrue(s.min() < 3 && s.max() > 3, s.min() + ".." + s.max());
        assertTrue(!s.ticks().isEmpty());
    }

    @Test
    void pixelsMapMinToTheFirstEdgeAndMaxToTheSecond() {
        AxisScale s = AxisScale.fit(0, 10, 0.0, 5);
        assertEquals(100.0, s.toPixel(0, 100, 300), 1e-9);
        assertEquals(300.0, s.toPixel(10, 100, 300), 1e-9);
        assertEquals(200.0, s.toPixel(5, 100, 300), 1e-9);
    }

    @Test
    void integralAxesNeverTickBetweenWholeNumbers() {
        AxisScale plain = AxisScale.fit(1, 4, 0.03, 5);
        AxisScale integral = AxisScale.fit(1, 4, 0.03, 5, true);
        assertEquals(0.5, plain.step(), 1e-12);
        assertEquals(1.0, integral.step(), 1e-12);
        assertEquals(List.of("1", "2", "3", "4"), integral.ticks().stream().map(integral::label).toList());
    }
}
