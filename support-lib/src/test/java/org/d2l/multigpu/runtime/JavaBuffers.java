package org.d2l.multigpu.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** What can happen between a forward and a backward pass: Java's unreachable direct buffers freed and their memory reused. */
public final class JavaBuffers {

    private JavaBuffers() {}

    /**
     * Collects garbage, lets the cleaner free the direct buffers found unreachable, and allocates 1000
     * buffers of 4 and 8 bytes (DJL's scalar sizes) holding NaN, which malloc serves from the memory just
     * freed; returns them, to be kept alive until the backward pass has run.
     */
    public static List<ByteBuffer> freeAndReuseWithNaN() throws InterruptedException {
        System.gc();
        Thread.sleep(50);
        List<ByteBuffer> reuse = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(i % 2 == 0 ? 4 : 8).order(ByteOrder.nativeOrder());
            if (b.capacity() == 4) {
                b.putFloat(0, Float.NaN);
            } else {
                b.putDouble(0, Double.NaN);
            }
            reuse.add(b);
        }
        return reuse;
    }
}
