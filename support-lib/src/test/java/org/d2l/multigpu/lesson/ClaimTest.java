package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClaimTest {

    private static final String SMOKE = "DATASET_LIMIT=512, MAX_EPOCH=1";

    @Test
    void aClaimThatHoldsStartsWithTheTickAndGivesTheMeasuredValue() {
        String line = Claim.line("2 devices follow 1 device within 0.03", 0.0125, true, Claim.Mode.RECORD, SMOKE);
        assertEquals("✔ 2 devices follow 1 device within 0.03 (measured: 0.0125)", line);
    }

    @Test
    void aClaimThatFailsStartsWithTheCross() {
        String line = Claim.line("2 devices follow 1 device within 0.03", 0.2085, false, Claim.Mode.RECORD, SMOKE);
        assertEquals("✘ 2 devices follow 1 device within 0.03 (measured: 0.2085)", line);
    }

    @Test
    void aFailedClaimInSmokeSettingsSaysItWasNotChecked() {
        String line = Claim.line("rare averaging costs accuracy", 0.0001, false, Claim.Mode.SMOKE, SMOKE);
        assertTrue(line.startsWith("✘ rare averaging costs accuracy (measured: 1.000e-04; not checked at the smoke "
                + "settings DATASET_LIMIT=512, MAX_EPOCH=1"), line);
    }

    @Test
    void aClaimThatHoldsInSmokeSettingsReadsAsAnyOther() {
        assertEquals("✔ equal (measured: 0)", Claim.line("equal", 0.0, true, Claim.Mode.SMOKE, SMOKE));
    }

    @Test
    void aFailedClaimInALearnersRunIsOnlyPrinted() {
        assertEquals("✘ faster (measured: 0.8 x)", Claim.line("faster", "0.8 x", false, Claim.Mode.INTERACTIVE, SMOKE));
    }

    @Test
    void numbersAreRoundedToFourSignificantDigitsOrScientificWhenTiny() {
        assertEquals("0.8493", Claim.format(0.849312));
        assertEquals("1234", Claim.format(1234.4));
        assertEquals("6.800e-07", Claim.format(6.8e-7));
        assertEquals("1.5", Claim.format(1.5f));
        assertEquals("42", Claim.format(42));
        assertEquals("NaN", Claim.format(Double.NaN));
    }

    @Test
    void thatPrintsOneLinePerClaimMarkedByWhetherItHolds() {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            Claim.that("holds", 1.0, true);
            Claim.that("fails", 2.0, false);
        } finally {
            System.setOut(out);
        }
        String[] lines = buf.toString(StandardCharsets.UTF_8).split("\\R");
        assertEquals(2, lines.length);
        assertTrue(lines[0].startsWith("✔ holds (measured: 1)"), lines[0]);
        assertTrue(lines[1].startsWith("✘ fails (measured: 2"), lines[1]);
    }

    @Test
    void theModeComesFromTheVariableAndABadValueIsExplained() {
        assertEquals(Claim.Mode.RECORD, Claim.parseMode("record"));
        assertEquals(Claim.Mode.SMOKE, Claim.parseMode(" Smoke "));
        assertEquals(Claim.Mode.INTERACTIVE, Claim.parseMode(null));
        assertEquals(Claim.Mode.INTERACTIVE, Claim.parseMode(""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Claim.parseMode("strict"));
        assertTrue(e.getMessage().contains("record, smoke or unset"), e.getMessage());
    }

    @Test
    void aClaimWithoutAStatementIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Claim.line(" ", 1, true, Claim.Mode.RECORD, SMOKE));
    }
}
