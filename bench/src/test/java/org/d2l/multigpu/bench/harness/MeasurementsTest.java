package org.d2l.multigpu.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MeasurementsTest {

    /** Figures [examples/s, peak RSS] of a base and a faster configuration on a machine that drifts. */
    private static Measurements drifting() {
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        runs.put("base", List.of(new double[] {100, 700}, new double[] {10, 650}, new double[] {50, 690}));
        runs.put("fast", List.of(new double[] {120, 800}, new double[] {13, 640}, new double[] {55, 720}));
        return new Measurements(runs);
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleValue() {
        assertEquals(3.0, Measurements.median(5, 1, 3));
        assertEquals(7.0, Measurements.median(7));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
        assertEquals(2.5, Measurements.median(4, 1, 2, 3));
        assertEquals(1.5, Measurements.median(2, 1));
    }

    @Test
    void theMedianIgnoresOneOutlier() {
        assertEquals(2.0, Measurements.median(1, 2, 1000));
    }

    @Test
    void mediansAndMaximaAreTakenPerConfiguration() {
        Measurements r = drifting();
        assertEquals(50.0, r.median("base", 0));
        assertEquals(55.0, r.median("fast", 0));
        assertEquals(800.0, r.max("fast", 1));
        assertEquals(700.0, r.max("base", 1));
    }

    @Test
    void aRatioIsTheMedianOfPerRoundRatiosNotTheRatioOfMedians() {
        Measurements r = drifting();
        // per round: 1.2, 1.3, 1.1 -> median 1.2; the medians' ratio would be 55 / 50 = 1.1
        assertEquals(1.2, r.ratio("fast", "base", 0), 1e-12);
        assertEquals(1.0, r.ratio("base", "base", 0));
    }

    @Test
    void anUnknownConfigurationIsNamedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> drifting().median("slow", 0));
        assertTrue(e.getMessage().contains("'slow'") && e.getMessage().contains("[base, fast]"), e.getMessage());
    }
}
