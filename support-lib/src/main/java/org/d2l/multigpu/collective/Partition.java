package org.d2l.multigpu.collective;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Who owns which tensor when whole tensors are shared out over {@code k} devices by size, as
 * PyTorch's {@code ZeroRedundancyOptimizer} does: largest first, each to the device whose share
 * is smallest so far (the lowest index on a tie); {@code owner[j]} is tensor j's device and
 * {@code share[i]} the elements device i owns.
 */
public record Partition(int[] owner, long[] share) {

    /**
     * Shares out tensors of the given {@code sizes} (elements each) over {@code k} devices, whole
     * tensors only, greedily by size as {@code ZeroRedundancyOptimizer} does (see {@link Partition});
     * the largest share exceeds the mean by less than the largest tensor.
     */
    public static Partition of(long[] sizes, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("partition needs at least one device, got " + k + ".");
        }
        Integer[] order = new Integer[sizes.length];
        for (int j = 0; j < sizes.length; j++) {
            if (sizes[j] < 0) {
                throw new IllegalArgumentException("tensor " + j + " has a negative size " + sizes[j] + ".");
            }
            order[j] = j;
        }
        Arrays.sort(order, (a, b) -> Long.compare(sizes[b], sizes[a])); // stable: equal sizes keep their order
        int[] owner = new int[sizes.length];
        long[] share = new long[k];
        for (int j : order) {
            int smallest = 0;
            for (int i = 1; i < k; i++) {
                if (share[i] < share[smallest]) {
                    smallest = i;
                }
            }
            owner[j] = smallest;
            share[smallest] += sizes[j];
        }
        return new Partition(owner, share);
    }

    /** The indices of the tensors device {@code i} owns, in their original order. */
    public List<Integer> owned(int i) {
        List<Integer> mine = new ArrayList<>();
        for (int j = 0; j < owner.length; j++) {
            if (owner[j] == i) {
                mine.add(j);
            }
        }
        return mine;
    }

    /** The largest share of any device. */
    public long largestShare() {
        return Arrays.stream(share).max().orElse(0);
    }

    @Override
    public String toString() {
        return "Partition[owner=" + Arrays.toString(owner) + ", share=" + Arrays.toString(share) + "]";
    }
}

