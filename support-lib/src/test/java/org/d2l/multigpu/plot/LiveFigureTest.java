package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.junit.jupiter.api.Test;

class LiveFigureTest {

    private static void fit(EpochListener listener, int numEpochs) {
        listener.onFitStart(numEpochs);
        for (int e = 1; e <= numEpochs; e++) {
            listener.onEpoch(EpochMetrics.of(e, 1.0 / e, 0.5, 0.1 * e, 2, 100));
        }
    }

    /** Runs {@code body} with System.out captured (no kernel runs in the tests) and returns what it printed. */
    private static List<String> printed(Runnable body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void everyEpochOfEveryRunIsARowAndThePlotNamesTheRuns() {
        LiveFigure fig = LiveFigure.of("test acc").title("ResNet-18");
        printed(() -> {
            fit(fig.run("1 device"), 2);
            fit(fig.run("2 devices"), 2);
        });
        assertEquals(4, fig.table().rowCount());
        assertEquals(0.2, fig.table().doubleColumn("test acc").get(3), 1e-12);
        assertEquals("LinePlot[ResNet-18: 1 device, 2 devices]", fig.plot().toString());
    }

    @Test
    void aSizeIsKeptByThePlotAndASizeOutOfRangeIsRefused() {
        LiveFigure fig = LiveFigure.of("test acc").size(900, 420);
        assertEquals(900, fig.plot().width());
        assertEquals(420, fig.plot().height());
        assertEquals(640, LiveFigure.of("test acc").plot().width());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> fig.size(100, 420));
        assertEquals(900, fig.plot().width(), "a refused size leaves the figure as it was");
    }

    @Test
    void withoutAKernelOneLineIsPrintedPerEpochAndTheFigureAtTheEnd() {
        List<String> lines = printed(() -> {
            LiveFigure fig = LiveFigure.of("test acc");
            fig.begin("scratch", 2);
            fig.add("scratch", 1, 0.5);
            fig.add("scratch", 2, 0.75);
        });
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("scratch, epoch 2: test acc 0.7500", lines.get(1));
        assertTrue(lines.get(2).contains("no Jupyter kernel detected"), lines.get(2));
    }
}
