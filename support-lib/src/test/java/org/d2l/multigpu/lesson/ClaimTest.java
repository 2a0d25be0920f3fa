package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimTest {

    private static final String SMOKE = "DATASET_LIMIT=512, MAX_EPOCH=1";

    @Test
    void aClaimThatHoldsStartsWithTheTickAndGivesTheMeasuredValue() {
        String line = Claim.line(Claim.Kind.CLAIM, "2 devices follow 1 device within 0.03", 0.0125, true, Claim.Mode.RECORD, SMOKE);
        assertEquals("✔ 2 devices follow 1 device within 0.03 (measured: 0.0125)", line);
    }

    @Test
    void aClaimThatFailsStartsWithTheCross() {
        String line = Claim.line(Claim.Kind.CLAIM, "2 devices follow 1 device within 0.03", 0.2085, false, Claim.Mode.RECORD, SMOKE);
        assertEquals("✘ 2 devices follow 1 device within 0.03 (measured: 0.2085)", line);
    }

    @Test
    void aFailedClaimInSmokeSettingsSaysItWasNotChecked() {
        String line = Claim.line(Claim.Kind.CLAIM, "rare averaging costs accuracy", 0.0001, false, Claim.Mode.SMOKE, SMOKE);
        assertTrue(line.startsWith("✘ rare averaging costs accuracy (measured: 1.000e-04; not checked at these "
                + "settings, DATASET_LIMIT=512, MAX_EPOCH=1"), line);
    }

    @Test
    void aClaimNeedingTwoCoresIsNotCheckedOnOneAndSaysWhy() {
        String line = Claim.coresLine(2, 1, "two stages run at once", List.of(0.467, 0.328), false);
        assertEquals("○ not checked on 1 CPU core, it needs 2: two stages run at once (measured: 0.467, 0.328)", line);
    }

    @Test
    void aClaimNeedingTwoCoresIsJudgedOnTwo() {
        assertTrue(Claim.coresLine(2, 2, "two stages run at once", 0.2, true).startsWith("✔ two stages run at once"));
        assertTrue(Claim.coresLine(2, 4, "two stages run at once", 0.9, false).startsWith("✘ two stages run at once"));
    }

    @Test
    void aClaimThatHoldsInSmokeSettingsReadsAsAnyOther() {
        assertEquals("✔ equal (measured: 0)", Claim.line(Claim.Kind.CLAIM, "equal", 0.0, true, Claim.Mode.SMOKE, SMOKE));
    }

    @Test
    void aFailedClaimInALearnersRunIsOnlyPrinted() {
        assertEquals("✘ faster (measured: 0.8)", Claim.line(Claim.Kind.CLAIM, "faster", 0.8, false, Claim.Mode.INTERACTIVE, SMOKE));
    }

    @Test
    void numbersAreRoundedToFourSignificantDigitsButKeepTheirIntegerDigitsOrScientificWhenTiny() {
        assertEquals("0.8493", Claim.format(0.849312));
        assertEquals("1234", Claim.format(1234.4));
        assertEquals("16134", Claim.format(16134.375)); // never fewer digits than the integer part
        assertEquals("-99999", Claim.format(-99999.2));
        assertEquals("6.800e-07", Claim.format(6.8e-7));
        assertEquals("1.5", Claim.format(1.5f));
        assertEquals("42", Claim.format(42));
        assertEquals("NaN", Claim.format(Double.NaN));
        assertEquals("9781", Claim.format(9781L));
    }

    @Test
    void aShortListOfNumbersIsPrintedSeparatedByCommas() {
        assertEquals("4.000e-04, 0.03128", Claim.format(List.of(0.0004, 0.03128)));
        assertEquals("1, 2, 3", Claim.format(new long[] {1, 2, 3}));
        assertEquals("0.5, 0.25", Claim.format(new double[] {0.5, 0.25}));
    }

    @Test
    void aBooleanMeasuredValueIsRefusedWithWhatToPassInstead() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Claim.line(Claim.Kind.CLAIM, "peaks as predicted", true, true, Claim.Mode.RECORD, SMOKE));
        assertTrue(e.getMessage().contains("the boolean true"), e.getMessage());
        assertTrue(e.getMessage().contains("number the statement judges"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Claim.format(List.of(1.0, false)));
    }

    @Test
    void aTextOrAnEmptyOrLongListIsRefused() {
        IllegalArgumentException text = assertThrows(IllegalArgumentException.class, () -> Claim.format("stopped"));
        assertTrue(text.getMessage().contains("the text \"stopped\""), text.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Claim.format(null));
        assertThrows(IllegalArgumentException.class, () -> Claim.format(List.of()));
        IllegalArgumentException longList = assertThrows(IllegalArgumentException.class,
                () -> Claim.format(new int[Claim.MAX_VALUES + 1]));
        assertTrue(longList.getMessage().contains("at most " + Claim.MAX_VALUES), longList.getMessage());
    }

    @Test
    void aLearnersRunWithALimitOnTheDataOrTheEpochsCountsAsTooSmallToShowTheClaims() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("D2L_CLAIMS") == null && System.getenv("DATASET_LIMIT") == null
                && System.getenv("MAX_EPOCH") == null, "the environment sets these");
        String before = System.getProperty("dataset.limit");
        try {
            System.clearProperty("dataset.limit");
            assertEquals(Claim.Mode.INTERACTIVE, Claim.mode());
            System.setProperty("dataset.limit", "3000");
            assertEquals(Claim.Mode.SMOKE, Claim.mode());
        } finally {
            if (before == null) {
                System.clearProperty("dataset.limit");
            } else {
                System.setProperty("dataset.limit", before);
            }
        }
    }

    @Test
    void aCheckSaysSoAfterTheMarkAndACheckThatFailsIsMarkedAsAClaimIs() {
        assertEquals("✔ check: each replica holds 16P bytes (measured: 0)",
                Claim.line(Claim.Kind.CHECK, "each replica holds 16P bytes", 0, true, Claim.Mode.RECORD, SMOKE));
        assertEquals("✘ check: each replica holds 16P bytes (measured: 12)",
                Claim.line(Claim.Kind.CHECK, "each replica holds 16P bytes", 12, false, Claim.Mode.RECORD, SMOKE));
        assertTrue(Claim.line(Claim.Kind.CHECK, "formula", 12, false, Claim.Mode.SMOKE, SMOKE)
                .startsWith("✘ check: formula (measured: 12; not checked at these settings"));
    }

    @Test
    void thatAndCheckPrintOneLineEachMarkedByWhetherItHolds() {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            Claim.that("holds", 1.0, true);
            Claim.that("fails", 2.0, false);
            Claim.check("counted", 3, true);
        } finally {
            System.setOut(out);
        }
        String[] lines = buf.toString(StandardCharsets.UTF_8).split("\\R");
        assertEquals(3, lines.length);
        assertTrue(lines[0].startsWith("✔ holds (measured: 1)"), lines[0]);
        assertTrue(lines[1].startsWith("✘ fails (measured: 2"), lines[1]);
        assertTrue(lines[2].startsWith("✔ check: counted (measured: 3)"), lines[2]);
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
        assertThrows(IllegalArgumentException.class, () -> Claim.line(Claim.Kind.CLAIM, " ", 1, true, Claim.Mode.RECORD, SMOKE));
    }
}
