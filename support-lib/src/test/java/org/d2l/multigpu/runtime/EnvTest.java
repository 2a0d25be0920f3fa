package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class EnvTest {

    @Test
    void theEnvironmentWinsOverThePropertyAndBlankCountsAsUnset() {
        assertEquals(Optional.of("3"), Env.first("3", "5"));
        assertEquals(Optional.of("5"), Env.first(null, "5"));
        assertEquals(Optional.of("5"), Env.first("  ", " 5 "));
        assertEquals(Optional.empty(), Env.first(null, " "));
    }

    @Test
    void aSwitchIsOnUnlessFalseOrZeroAndTakesItsDefaultWhenUnset() {
        assertTrue(Env.isOn(Optional.empty(), true));
        assertFalse(Env.isOn(Optional.empty(), false));
        assertTrue(Env.isOn(Optional.of("true"), false));
        assertFalse(Env.isOn(Optional.of("FALSE"), true));
        assertFalse(Env.isOn(Optional.of("0"), true));
        assertTrue(Env.isOn(Optional.of("yes"), false));
    }

    @Test
    void aPropertyIsReadUnderTheLowercaseDottedNameOfTheVariable() {
        assertEquals("d2l.test.only.setting", Env.propertyName("D2L_TEST_ONLY_SETTING"));
        System.setProperty("d2l.test.only.setting", "7");
        try {
            assertEquals(Optional.of("7"), Env.get("D2L_TEST_ONLY_SETTING"));
        } finally {
            System.clearProperty("d2l.test.only.setting");
        }
        assertEquals(Optional.empty(), Env.get("D2L_TEST_ONLY_SETTING"));
    }
}
