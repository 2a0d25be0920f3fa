package org.d2l.multigpu.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MarkdownTableTest {

    @Test
    void writesAHeaderADelimiterRowAndOneLinePerRow() {
        String t = new MarkdownTable().text("trainer").number("examples/s (median)", 1).number("ratio", 3)
                .number("peak RSS MB (max)", 0)
                .row("DJL Trainer + EasyTrain, 1 device", 4411.44, 1.0, 781.4)
                .row("DataParallelTrainer, 1 replica", 5593.06, 1.2196, 701.6)
                .toString();
        assertEquals("| trainer | examples/s (median) | ratio | peak RSS MB (max) |\n"
                + "|---|---|---|---|\n"
                + "| DJL Trainer + EasyTrain, 1 device | 4411.4 | 1.000 | 781 |\n"
                + "| DataParallelTrainer, 1 replica | 5593.1 | 1.220 | 702 |\n", t);
    }

    @Test
    void numbersRoundHalfUpWithoutGroupingAsStringFormatDoes() {
        String t = new MarkdownTable().number("a", 2).number("b", 0).number("c", 1).row(0.125, 1234567.5, -0.25).toString();
        assertEquals(String.format(java.util.Locale.ROOT, "| %.2f | %.0f | %.1f |%n", 0.125, 1234567.5, -0.25),
                t.substring(t.lastIndexOf("\n|", t.length() - 2) + 1));
        assertTrue(t.endsWith("| 0.13 | 1234568 | -0.3 |\n"), t);
    }

    @Test
    void aMissingNumberShowsAsADash() {
        String t = new MarkdownTable().text("run").number("overhead, ms", 1).row("in-process", null)
                .row("Spark", Double.NaN).row("Spark", 12.25).toString();
        assertTrue(t.endsWith("| in-process | - |\n| Spark | - |\n| Spark | 12.3 |\n"), t);
    }

    @Test
    void aPipeInACellIsEscaped() {
        assertTrue(new MarkdownTable().text("a|b").row("x|y").toString().endsWith("| x\\|y |\n"));
    }

    @Test
    void aRowOfTheWrongLengthOrTypeSaysWhatTheColumnsTake() {
        MarkdownTable t = new MarkdownTable().text("run").number("examples/s", 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.row("x"));
        assertTrue(e.getMessage().contains("1 cells for 2 columns [run, examples/s]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> t.row("x", "fast"));
        assertTrue(e.getMessage().contains("'examples/s' takes a number or null, got fast"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> t.row(3, 1.0));
        assertTrue(e.getMessage().contains("'run' takes text, got 3"), e.getMessage());
    }

    @Test
    void theFiguresStayATablesawTable() {
        MarkdownTable t = new MarkdownTable().text("run").number("examples/s", 1).row("a", 2.0).row("b", 3.5);
        assertEquals(2, t.table().rowCount());
        assertEquals(5.5, t.table().doubleColumn("examples/s").sum());
    }
}
