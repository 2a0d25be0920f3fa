package org.d2l.multigpu.plot;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/** Creates element ids that are unique per figure and valid JS identifiers ("plot_" + hex, no hyphens). */
final class DivIds {

    private static final Pattern JS_IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    private static final AtomicLong COUNTER = new AtomicLong();
    private static final String SESSION;

    static {
        byte[] bytes = new byte[6];
        new SecureRandom().nextBytes(bytes);
        SESSION = HexFormat.of().formatHex(bytes);
    }

    private DivIds() {}

    /** A fresh id: random per JVM plus a counter, so ids differ across cells, kernels and restarts. */
    static String next() {
        return "plot_" + SESSION + "_" + Long.toHexString(COUNTER.incrementAndGet());
    }

    /** Whether the text is a plain ASCII JavaScript identifier. */
    static boolean isJsIdentifier(String text) {
        return text != null && JS_IDENTIFIER.matcher(text).matches();
    }
}
