package org.d2l.multigpu.collective;

import java.util.Arrays;

/**
 * Who sends and receives which chunk at each step of a ring allreduce of {@code n} elements over
 * {@code k} ranks, seen from one rank, as plain arithmetic (no arrays of the engine): what a process
 * that holds one replica needs to take part in the ring. The chunking and step order are those of
 * the in-process ring ({@link Ring#allreduce}, which follows this schedule): chunk c has n / k elements, the first
 * n mod k one more; rank r sends to rank r + 1 and receives from rank r - 1 (mod k); at
 * reduce-scatter step s rank r sends chunk (r - s) mod k and adds the chunk (r - 1 - s) mod k it
 * receives into its own, so that after k - 1 steps it holds the sum of chunk (r + 1) mod k; at
 * all-gather step s it sends chunk (r + 1 - s) mod k and keeps chunk (r - s) mod k. The
 * {@link #ownChunks} variant shifts every chunk index by -1, so that rank r ends the reduce-scatter
 * with chunk r (as {@link Ring#reduceScatter} and {@link Ring#allGather}).
 */
public final class RingSchedule {

    private final long n;
    private final int k;
    private final int shift;
    private final long[] starts;

    private RingSchedule(long n, int k, int shift) {
        if (n < 0) {
            throw new IllegalArgumentException("A ring cannot reduce a negative number of elements: " + n + ".");
        }
        this.n = n;
        this.k = k;
        this.shift = shift;
        long[] sizes = chunkSizes(n, k);
        this.starts = new long[k + 1];
        for (int c = 0; c < k; c++) {
            starts[c + 1] = starts[c] + sizes[c];
        }
    }

    /** The schedule of ring allreduce: rank r holds the full sum of chunk r + 1 after the reduce-scatter. */
    public static RingSchedule allreduce(long n, int k) {
        return new RingSchedule(n, k, 0);
    }

    /** The schedule of ring reduce-scatter and all-gather on their own: rank r holds chunk r in between. */
    public static RingSchedule ownChunks(long n, int k) {
        return new RingSchedule(n, k, -1);
    }

    /**
     * The sizes of the k chunks of {@code n} elements: n / k each, the first n mod k one element more
     * (10 elements over 4 ranks give 3, 3, 2, 2).
     */
    public static long[] chunkSizes(long n, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("A ring needs at least one rank, got " + k + ".");
        }
        long[] sizes = new long[k];
        for (int c = 0; c < k; c++) {
            sizes[c] = n / k + (c < n % k ? 1 : 0);
        }
        return sizes;
    }

    /** The number of ranks, k. */
    public int ranks() {
        return k;
    }

    /** The number of elements reduced, n. */
    public long elements() {
        return n;
    }

    /** The steps of each of the two phases, k - 1. */
    public int steps() {
        return k - 1;
    }

    /** The index of chunk {@code c}'s first element. */
    public long chunkStart(int c) {
        return starts[checkChunk(c)];
    }

    /** The index just past chunk {@code c}'s last element. */
    public long chunkEnd(int c) {
        return starts[checkChunk(c) + 1];
    }

    /** The number of elements of chunk {@code c}. */
    public long chunkSize(int c) {
        return chunkEnd(c) - chunkStart(c);
    }

    /** The rank that {@code rank} sends to. */
    public int next(int rank) {
        return (checkRank(rank) + 1) % k;
    }

    /** The rank that {@code rank} receives from. */
    public int previous(int rank) {
        return (checkRank(rank) + k - 1) % k;
    }

    /** The chunk {@code rank} sends at reduce-scatter step {@code step}. */
    public int reduceScatterSend(int rank, int step) {
        return chunk(checkRank(rank) - checkStep(step));
    }

    /** The chunk {@code rank} receives at reduce-scatter step {@code step} and adds into its own copy. */
    public int reduceScatterReceive(int rank, int step) {
        return reduceScatterSend(previous(rank), step);
    }

    /** The chunk {@code rank} sends at all-gather step {@code step}. */
    public int allGatherSend(int rank, int step) {
        return chunk(checkRank(rank) + 1 - checkStep(step));
    }

    /** The chunk {@code rank} receives at all-gather step {@code step} and keeps in place of its own. */
    public int allGatherReceive(int rank, int step) {
        return allGatherSend(previous(rank), step);
    }

    /** The chunk whose full sum {@code rank} holds after the reduce-scatter (and sends first in the all-gather). */
    public int reducedChunk(int rank) {
        return chunk(checkRank(rank) + 1);
    }

    /** The elements {@code rank} sends in one allreduce (both phases): 2n - c[r+1] - c[r+2] in allreduce order. */
    public long elementsSent(int rank) {
        long sum = 0;
        for (int s = 0; s < steps(); s++) {
            sum += chunkSize(reduceScatterSend(rank, s)) + chunkSize(allGatherSend(rank, s));
        }
        return sum;
    }

    /** The elements {@code rank} receives in one allreduce (both phases): 2n - c[r] - c[r+1] in allreduce order. */
    public long elementsReceived(int rank) {
        return elementsSent(previous(rank));
    }

    private int chunk(int index) {
        return Math.floorMod(index + shift, k);
    }

    private int checkChunk(int c) {
        if (c < 0 || c >= k) {
            throw new IllegalArgumentException("Chunk " + c + " does not exist: a ring of " + k + " ranks has chunks 0 to "
                    + (k - 1) + ".");
        }
        return c;
    }

    private int checkRank(int rank) {
        if (rank < 0 || rank >= k) {
            throw new IllegalArgumentException("Rank " + rank + " is not in a ring of " + k + " ranks (0 to " + (k - 1)
                    + ").");
        }
        return rank;
    }

    private int checkStep(int step) {
        if (step < 0 || step >= k - 1) {
            throw new IllegalArgumentException("Step " + step + " is not a step of a ring of " + k + " ranks: each phase has "
                    + (k - 1) + " step(s), 0 to " + (k - 2) + ".");
        }
        return step;
    }

    @Override
    public String toString() {
        return "RingSchedule[" + n + " elements, " + k + " ranks, chunks " + Arrays.toString(chunkSizes(n, k))
                + (shift == 0 ? "" : ", rank r reduces chunk r") + "]";
    }
}
