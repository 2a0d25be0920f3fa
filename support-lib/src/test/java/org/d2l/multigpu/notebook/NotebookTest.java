package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NotebookTest {

    private static final Map<String, String> BUNDLE =
            Map.of("text/html", "<b>plot</b>", "image/png", "iVBORw0KGgo=", "text/plain", "LinePlot[t: a]");
    static final KernelAccessor JJAVA =
            new KernelAccessor("fake JJava", FakeKernels.JJavaLike.class.getName(), "notebookKernel");
    static final KernelAccessor RAPAIO =
            new KernelAccessor("fake rapaio", FakeKernels.RapaioLike.class.getName(), "kernel");
    private static final KernelAccessor MISSING =
            new KernelAccessor("missing", "org.example.NoSuchKernel", "getKernelInstance");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void noKernels() {
        FakeKernels.JJavaLike.instance = null;
        FakeKernels.RapaioLike.kernel = null;
        Notebook.use(KernelAccessor.KNOWN, null, null);
    }

    private void use(KernelAccessor... accessors) {
        Notebook.use(List.of(accessors), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void jjavaShapedKernelReceivesOneDisplayWithEveryMimeType() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        use(MISSING, JJAVA);
        assertTrue(Notebook.display(BUNDLE));
        assertEquals(1, kernel.shown.size());
        assertEquals(BUNDLE, kernel.shown.get(0).data);
        assertEquals(null, kernel.shown.get(0).displayId);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void jjavaShapedKernelIsUpdatedThroughItsDisplayStreamWithTheSameId() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        use(JJAVA);
        assertTrue(Notebook.display(BUNDLE, "fig1"));
        assertTrue(Notebook.update(BUNDLE, "fig1"));
        assertEquals("fig1", kernel.shown.get(0).displayId);
        assertEquals("fig1", kernel.updates.get(0).displayId);
        assertEquals(BUNDLE, kernel.updates.get(0).data);
    }

    @Test
    void rapaioShapedKernelGetsDisplayDataBuiltThroughFromTextAndUpdatesThroughUpdateDisplay() {
        FakeKernels.RapaioLike kernel = new FakeKernels.RapaioLike();
        FakeKernels.RapaioLike.kernel = kernel;
        use(RAPAIO, JJAVA);
        Map<String, String> bundle = Map.of(Notebook.HTML, "<div>figure</div>", Notebook.PNG, "iVBORw0KGgo=",
                Notebook.TEXT, "LinePlot[test acc: 1 device]");
        assertTrue(Notebook.display(bundle, "id7"));
        assertTrue(Notebook.update(bundle, "id7"));
        assertEquals(1, kernel.shown.size());
        Map<String, Object> data = kernel.shown.get(0).data;
        assertEquals(bundle.get("text/html"), data.get("text/html"));
        assertEquals(bundle.get("image/png"), data.get("image/png"));
        assertEquals("LinePlot[test acc: 1 device]", data.get("text/plain"));
        assertEquals("id7", kernel.updates.get(0).displayId);
    }

    @Test
    void withoutAKernelOneLineIsPrintedAndNothingFails() {
        use(MISSING, JJAVA, RAPAIO);
        assertFalse(Notebook.display(BUNDLE));
        assertFalse(Notebook.update(BUNDLE, "x"));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, printed.lines().count(), printed);
        assertTrue(printed.startsWith("LinePlot[t: a] (no Jupyter kernel detected"), printed);
    }

    @Test
    void aKernelThatRejectsTheOutputIsReportedOnStderr() {
        use(new KernelAccessor("broken", FakeKernels.Broken.class.getName(), "kernel"));
        assertFalse(Notebook.display(BUNDLE));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("broken kernel did not accept") && printed.contains("channel closed"), printed);
    }

    @Test
    void anEmptyBundleOrABlankDisplayIdIsRejected() {
        use(JJAVA);
        assertThrows(IllegalArgumentException.class, () -> Notebook.display(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> Notebook.update(BUNDLE, " "));
    }

    @Test
    void noKnownKernelIsDetectedInAPlainJvm() {
        assertTrue(Notebook.kernelName().isEmpty(), Notebook.kernelName().toString());
    }
}
