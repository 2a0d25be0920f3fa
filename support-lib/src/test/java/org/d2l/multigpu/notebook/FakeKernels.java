package org.d2l.multigpu.notebook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Stand-ins shaped like the real kernels' display API, for testing the reflective path without a kernel. */
public final class FakeKernels {

    private FakeKernels() {}

    /** Shaped like JJava/IJava: static accessor method, display(DisplayData), updates through getIO().display. */
    public static final class JJavaLike {
        public static JJavaLike instance;
        public final List<JJavaLike.DisplayData> shown = new ArrayList<>();
        public final List<JJavaLike.DisplayData> updates = new ArrayList<>();

        public static JJavaLike notebookKernel() {
            if (instance == null) {
                throw new NullPointerException("No kernel running");
            }
            return instance;
        }

        public void display(JJavaLike.DisplayData data) {
            shown.add(data);
        }

        public IO getIO() {
            return new IO();
        }

        /** Shaped like JJava/IJava's DisplayData: public no-argument constructor, putData, setDisplayId. */
        public static final class DisplayData {
            public final Map<String, Object> data = new LinkedHashMap<>();
            public String displayId;

            public DisplayData() {}

            public void putData(String mime, Object value) {
                data.put(mime, value);
            }

            public void setDisplayId(String id) {
                displayId = id;
            }
        }

        /** Shaped like JupyterIO with its public field display. */
        public final class IO {
            public final Stream display = new Stream();
        }

        /** Shaped like DisplayStream. */
        public final class Stream {
            public void updateDisplay(JJavaLike.DisplayData data) {
                updates.add(data);
            }
        }
    }

    /** Shaped like rapaio: public static field, DisplayData with a protected constructor and fromText(String). */
    public static final class RapaioLike {
        public static RapaioLike kernel;
        public final List<DisplayData> shown = new ArrayList<>();
        public final List<DisplayData> updates = new ArrayList<>();

        public void display(DisplayData data) {
            shown.add(data);
        }

        public void updateDisplay(DisplayData data) {
            updates.add(data);
        }

        /** Shaped like org.rapaio.jupyter.kernel.display.DisplayData. */
        public static class DisplayData {
            public final Map<String, Object> data = new LinkedHashMap<>();
            public String displayId;

            protected DisplayData() {}

            public static DisplayData fromText(String text) {
                DisplayData d = new DisplayData();
                d.putData("text/plain", text);
                return d;
            }

            public void putData(String mime, Object value) {
                data.put(mime, value);
            }

            public void setDisplayId(String id) {
                displayId = id;
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
