package org.d2l.multigpu.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class EarlyStoppingConfigurationTest {

    private static void assertClearError(Executable bad, String... mustSay) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad);
        for (String s : mustSay) {
            assertTrue(e.getMessage().contains(s), "\"" + e.getMessage() + "\" should say " + s);
        }
    }

    @Test
    void aPatienceBelowOneIsAClearError() {
        assertClearError(() -> EarlyStoppingConfiguration.builder().optEpochPatience(0), "epochPatience", "got 0");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optEpochPatience(-2), "epochPatience", "got -2");
    }

    @Test
    void noTerminationConditionIsAClearError() {
        assertClearError(() -> EarlyStoppingConfiguration.builder().build(),
                "No termination condition", "optMaxEpochs", "optMaxDuration", "optEpochPatience");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMonitor(ScoreMonitor.trainLoss()).build(),
                "No termination condition");
    }

    @Test
    void aNegativeOrNanMinimumImprovementIsAClearError() {
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMinImprovement(-0.01), "minImprovement", "-0.01");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMinImprovement(Double.NaN), "minImprovement");
        assertClearError(() -> EarlyStoppingConfiguration.builder()
                .optMinImprovement(Double.POSITIVE_INFINITY), "minImprovement");
    }

    @Test
    void aMinimumImprovementWithoutPatienceIsAClearError() {
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMaxEpochs(5).optMinImprovement(0.01).build(),
                "optEpochPatience");
    }

    @Test
    void badEpochAndTimeLimitsAreClearErrors() {
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMaxEpochs(0), "maxEpochs", "got 0");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMaxDuration(Duration.ZERO), "maxDuration");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMaxDuration(Duration.ofSeconds(-1)),
                "maxDuration");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMaxDuration(null), "maxDuration");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optMonitor(null), "monitor");
        assertClearError(() -> EarlyStoppingConfiguration.builder().optClock(null), "clock");
        assertClearError(() -> ScoreMonitor.lowerIsBetter(" ", (t, m) -> 0), "name");
        assertClearError(() -> ScoreMonitor.higherIsBetter("f1", null), "f1");
    }

    @Test
    void eachConditionAloneIsEnoughAndTheDefaultsAreAsDocumented() {
        EarlyStoppingConfiguration byEpochs = EarlyStoppingConfiguration.builder().optMaxEpochs(4).build();
        assertEquals(4, byEpochs.getMaxEpochs());
        assertNull(byEpochs.getMaxDuration());
        assertEquals(0, byEpochs.getEpochPatience());
        assertEquals(0.0, byEpochs.getMinImprovement());
        assertEquals("test accuracy", byEpochs.getMonitor().name());
        assertTrue(byEpochs.getMonitor().higherIsBetter());
        assertEquals(Duration.ofMinutes(3),
                EarlyStoppingConfiguration.builder().optMaxDuration(Duration.ofMinutes(3)).build().getMaxDuration());
        assertEquals(2, EarlyStoppingConfiguration.builder().optEpochPatience(2).build().getEpochPatience());
    }
}
