package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.d2l.multigpu.parallel.EpochListener;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LiveFigureTest {

    @AfterEach
    void noKernels() {
        FakeKernels.RapaioLike.kernel = null;
        FakeKernels.JJavaLike.instance = null;
        Notebook.use(KernelAccessor.KNOWN, null, null);
    }

    private static void fit(EpochListener listener, int numEpochs) {
        listener.onFitStart(numEpochs);
        for (int e = 1; e <= numEpochs; e++) {
            listener.onEpoch(new EpochMetrics(e, 1.0 / e, 0.5, 0.1 * e, 2, 100));
        }
    }

    @Test
    void aRunShowsOneDisplayAndUpdatesItOncePerEpochWithTheSameId() {
        FakeKernels.RapaioLike kernel = new FakeKernels.RapaioLike();
        FakeKernels.RapaioLike.kernel = kernel;
        Notebook.use(List.of(NotebookTest.RAPAIO), System.out, System.err);
        LiveFigure fig = LiveFigure.of("test acc").title("ResNet-18");
        fit(fig.run("1 device"), 3);
        assertEquals(1, kernel.shown.size());
        assertEquals(3, kernel.updates.size());
        String id = kernel.shown.get(0).displayId;
        assertTrue(id != null && !id.isBlank());
        kernel.updates.forEach(u -> assertEquals(id, u.displayId));
        assertTrue(String.valueOf(kernel.updates.get(2).data.get("text/plain")).contains("1 device"));
        assertEquals(3, fig.table().rowCount());
    }

    @Test
    void aSecondRunRedrawsTheFirstRunsOutputInsteadOfShowingTheFigureAgain() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        Notebook.use(List.of(NotebookTest.JJAVA), System.out, System.err);
        LiveFigure fig = LiveFigure.of("test acc");
        fit(fig.run("1 device"), 2);
        fit(fig.run("2 devices"), 2);
        assertEquals(1, kernel.shown.size());
        assertEquals(5, kernel.updates.size()); // 2 epochs, the second run's start, 2 epochs
        String id = kernel.shown.get(0).displayId;
        kernel.updates.forEach(u -> assertEquals(id, u.displayId));
        assertEquals("LinePlot[test acc: 1 device, 2 devices]", kernel.updates.get(4).data.get("text/plain"));
    }

    @Test
    void aNewFigureIsANewOutput() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        Notebook.use(List.of(NotebookTest.JJAVA), System.out, System.err);
        fit(LiveFigure.of("test acc").run("1 device"), 1);
        fit(LiveFigure.of("test acc").run("1 device"), 1);
        assertEquals(2, kernel.shown.size());
        assertNotEquals(kernel.shown.get(0).displayId, kernel.shown.get(1).displayId);
    }

    @Test
    void withoutAKernelOneLineIsPrintedPerEpochAndTheFigureAtTheEnd() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Notebook.use(List.of(), null, null); // System.out as it is at the time of the call
            LiveFigure fig = LiveFigure.of("test acc");
            fig.begin("scratch", 2);
            fig.add("scratch", 1, 0.5);
            fig.add("scratch", 2, 0.75);
        } finally {
            System.setOut(saved);
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("scratch, epoch 2: test acc 0.7500", lines.get(1));
        assertTrue(lines.get(2).contains("no Jupyter kernel detected"), lines.get(2));
    }
}
