package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LiveDisplayTest {

    private static Map<String, String> frame(int n) {
        return Map.of(Notebook.TEXT, "frame " + n);
    }

    @AfterEach
    void noKernels() {
        FakeKernels.RapaioLike.kernel = null;
        FakeKernels.JJavaLike.instance = null;
        Notebook.use(KernelAccessor.KNOWN, null, null);
    }

    @Test
    void oneOutputIsShownAndEveryRedrawReplacesItUnderTheSameId() {
        FakeKernels.RapaioLike kernel = new FakeKernels.RapaioLike();
        FakeKernels.RapaioLike.kernel = kernel;
        Notebook.use(List.of(NotebookTest.RAPAIO), System.out, System.err);
        LiveDisplay d = new LiveDisplay();
        assertTrue(d.show(() -> frame(0)));
        for (int i = 1; i <= 3; i++) {
            int n = i;
            assertTrue(d.redraw(() -> frame(n)));
        }
        assertEquals(1, kernel.shown.size());
        assertEquals(3, kernel.updates.size());
        String id = kernel.shown.get(0).displayId;
        assertTrue(id != null && !id.isBlank());
        kernel.updates.forEach(u -> assertEquals(id, u.displayId));
        assertEquals("frame 3", kernel.updates.get(2).data.get(Notebook.TEXT));
    }

    @Test
    void redrawsGoThroughJJavasDisplayStream() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        Notebook.use(List.of(NotebookTest.JJAVA), System.out, System.err);
        LiveDisplay d = new LiveDisplay();
        d.show(() -> frame(0));
        d.redraw(() -> frame(1));
        assertEquals(1, kernel.shown.size());
        assertEquals(List.of(kernel.shown.get(0).displayId), kernel.updates.stream().map(u -> u.displayId).toList());
    }

    @Test
    void aSecondShowIsANewOutputWithANewId() {
        FakeKernels.JJavaLike kernel = new FakeKernels.JJavaLike();
        FakeKernels.JJavaLike.instance = kernel;
        Notebook.use(List.of(NotebookTest.JJAVA), System.out, System.err);
        LiveDisplay d = new LiveDisplay();
        d.show(() -> frame(0));
        d.show(() -> frame(1));
        assertEquals(2, kernel.shown.size());
        assertNotEquals(kernel.shown.get(0).displayId, kernel.shown.get(1).displayId);
    }

    @Test
    void withoutAKernelNothingIsShownOrRedrawn() {
        Notebook.use(List.of(), System.out, System.err);
        LiveDisplay d = new LiveDisplay();
        assertFalse(d.show(() -> frame(0)));
        assertFalse(d.redraw(() -> frame(1)));
    }
}
