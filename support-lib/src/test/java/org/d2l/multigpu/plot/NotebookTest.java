package org.d2l.multigpu.plot;

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
    private static final KernelAccessor JJAVA =
            new KernelAccessor("fake JJava", FakeKernels.JJavaLike.class.getName(), "notebookKernel");
    private static final KernelAccessor RAPAIO =
            new KernelAccessor("fake rapaio", FakeKernels.RapaioLike.class.getName(), "kernel");
    private static final KernelAccessor MISSING =
            new KernelAccessor("missing", "org.example.NoSuchKernel", "getKernelInstance");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void noKernels() {
        FakeKernels.JJavaLike.instance = null;
        FakeKernels.RapaioLike.kernel = null;
    }

    private boolean display(Map<String, String> bundle, KernelAccessor... accessors) {
        return Notebook.display(bundle, List.of(accessors), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void jjavaShapedKernelReceivesOneDisplayWithEveryMimeType() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        assertTrue(display(BUNDLE, MISSING, JJAVA));
        assertEquals(1, kernel.shown.size());
        assertEquals(BUNDLE, kernel.shown.get(0).data);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void rapaioShapedKernelGetsDisplayDataBuiltThroughFromText() {
        FakeKernels.RapaioLike kernel = new FakeKernels.RapaioLike();
        FakeKernels.RapaioLike.kernel = kernel;
        LinePlot plot = HtmlFragmentTest.plot("1 device");
        Map<String, String> bundle = plot.mimeBundle();
        assertTrue(display(bundle, RAPAIO, JJAVA));
        assertEquals(1, kernel.shown.size());
        Map<String, Object> data = kernel.shown.get(0).data;
        assertEquals(bundle.get("text/html"), data.get("text/html"));
        assertEquals(bundle.get("image/png"), data.get("image/png"));
        assertEquals(plot.toString(), data.get("text/plain"));
    }

    @Test
    void withoutAKernelOneLineIsPrintedAndNothingFails() {
        assertFalse(display(BUNDLE, MISSING, JJAVA, RAPAIO));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, printed.lines().count(), printed);
        assertTrue(printed.startsWith("LinePlot[t: a] (no Jupyter kernel detected"), printed);
    }

    @Test
    void aKernelThatRejectsTheOutputIsReportedOnStderr() {
        KernelAccessor broken = new KernelAccessor("broken", FakeKernels.Broken.class.getName(), "kernel");
        assertFalse(display(BUNDLE, broken));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("broken kernel did not accept") && printed.contains("channel closed"), printed);
    }

    @Test
    void anEmptyBundleIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> display(Map.of(), JJAVA));
    }

    @Test
    void noKnownKernelIsDetectedInAPlainJvm() {
        assertTrue(Notebook.kernelName().isEmpty(), Notebook.kernelName().toString());
    }

    @Test
    void showOutsideJupyterPrintsANoteInsteadOfFailing() {
        PrintStream saved = System.out;
        ByteArrayOutputStream capture = new ByteArrayOutputStream();
        System.setOut(new PrintStream(capture, true, StandardCharsets.UTF_8));
        try {
            HtmlFragmentTest.plot("1 device").show();
        } finally {
            System.setOut(saved);
        }
        assertTrue(capture.toString(StandardCharsets.UTF_8).contains("no Jupyter kernel detected"));
    }
}
