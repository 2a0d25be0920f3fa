package org.d2l.multigpu.collective;

import java.util.Arrays;

/**
 * What a collective moved, indexed by device: the elements each device sent and received (the values
 * it stands for) and the bytes that crossed the wire for them (4 per float32 element uncompressed,
 * fewer when a compressor encodes them).
 */
public record Traffic(long[] sent, long[] received, long[] sentBytes, long[] receivedBytes) {

    /** Traffic of {@code sent} and {@code received} elements of {@code bytesPerElement} bytes each, uncompressed. */
    public static Traffic elements(long[] sent, long[] received, int bytesPerElement) {
        return new Traffic(sent, received, times(sent, bytesPerElement), times(received, bytesPerElement));
    }

    /** No traffic between {@code k} devices. */
    public static Traffic none(int k) {
        return new Traffic(new long[k], new long[k], new long[k], new long[k]);
    }

    /**
     * This traffic, counted among a group of devices (index j for the group's j-th), placed at the devices
     * {@code at} (the group's j-th is device at[j]) of {@code k} in all.
     */
    public Traffic placed(int[] at, int k) {
        if (at.length != sent.length) {
            throw new IllegalArgumentException("Traffic among " + sent.length + " devices cannot be placed at " + at.length
                    + ".");
        }
        long[][] f = {new long[k], new long[k], new long[k], new long[k]};
        for (int j = 0; j < at.length; j++) {
            f[0][at[j]] += sent[j];
            f[1][at[j]] += received[j];
            f[2][at[j]] += sentBytes[j];
            f[3][at[j]] += receivedBytes[j];
        }
        return new Traffic(f[0], f[1], f[2], f[3]);
    }

    /** This traffic and {@code other}'s together, device by device (both between the same devices). */
    public Traffic plus(Traffic other) {
        if (other.sent.length != sent.length) {
            throw new IllegalArgumentException("Cannot add traffic between " + other.sent.length + " devices to traffic "
                    + "between " + sent.length + ".");
        }
        return new Traffic(add(sent, other.sent), add(received, other.received), add(sentBytes, other.sentBytes),
                add(receivedBytes, other.receivedBytes));
    }

    /** The most elements any one device sent. */
    public long maxSent() {
        return max(sent);
    }

    /** The most elements any one device received. */
    public long maxReceived() {
        return max(received);
    }

    /** The elements sent by all devices together. */
    public long totalSent() {
        return sum(sent);
    }

    /** The bytes sent by all devices together. */
    public long totalSentBytes() {
        return sum(sentBytes);
    }

    /** The most bytes any one device sent. */
    public long maxSentBytes() {
        return max(sentBytes);
    }

    // Plain loops, not streams: a step counts its traffic for every parameter, and the first steps of a run
    // run this code interpreted, before the JIT compiles it (streams there cost microseconds each).
    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    private static long max(long[] a) {
        long m = 0;
        for (long v : a) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static long[] times(long[] a, int f) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] * f;
        }
        return r;
    }

    private static long[] add(long[] a, long[] b) {
        long[] s = a.clone();
        for (int i = 0; i < s.length; i++) {
            s[i] += b[i];
        }
        return s;
    }

    @Override
    public String toString() {
        return "Traffic[sent=" + Arrays.toString(sent)
                + ", received=" + Arrays.toString(received) + "]";
    }
}
