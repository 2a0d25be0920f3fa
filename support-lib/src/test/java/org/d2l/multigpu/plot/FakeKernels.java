package org.d2l.multigpu.plot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Stand-ins shaped like the real kernels' display API, for testing the reflective path without a kernel. */
public final class FakeKernels {

    private FakeKernels() {}

    /** Shaped like JJava/IJava: static accessor method, DisplayData with a public no-argument constructor. */
    public static final class JJavaLike {
        public static JJavaLike instance;
        public final List<DisplayData> shown = new ArrayList<>();

        public static JJavaLike notebookKernel() {
            if (instance == null) {
                throw new NullPointerException("No kernel running");
            }
            return instance;
        }

        public void display(DisplayData data) {
            shown.add(data);
        }

        /** Shaped like org.dflib.jjava.jupyter.kernel.display.DisplayData. */
        public static final class DisplayData {
            public final Map<String, Object> data = new LinkedHashMap<>();

            public DisplayData() {}

            public void putData(String mime, Object value) {
                data.put(mime, value);
            }
        }
    }

    /** Shaped like rapaio: public static field, DisplayData with a protected constructor and fromText(String). */
    public static final class RapaioLike {
        public static RapaioLike kernel;
        public final List<DisplayData> shown = new ArrayList<>();

        public void display(DisplayData data) {
            shown.add(data);
        }

        /** Shaped like org.rapaio.jupyter.kernel.display.DisplayData. */
        public static class DisplayData {
            public final Map<String, Object> data = new LinkedHashMap<>();

            protected DisplayData() {}

            public static DisplayData fromText(String text) {
                DisplayData d = new DisplayData();
                d.putData("text/plain", text);
                return d;
            }

            public void putData(String mime, Object value) {
                data.put(mime, value);
            }
        }
    }

    /** A kernel whose display always fails. */
    public static final class Broken {
        public static Broken kernel = new Broken();

        public void display(JJavaLike.DisplayData data) {
            throw new IllegalStateException("channel closed");
        }
    }
}
