package org.d2l.multigpu.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The minibatches of one Spark partition, in training order: with k partitions, partition p holds
 * the data set's minibatches p, p + k, p + 2k, ... (round r of the in-process trainer gives worker p
 * minibatch r * k + p).
 */
public record Shard(int partition, List<Minibatch> batches) implements Serializable {

    /** Deals {@code batches} round robin into {@code k} shards. */
    public static List<Shard> deal(List<Minibatch> batches, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("The number of partitions must be at least 1, got " + k + ".");
        }
        List<List<Minibatch>> lists = new ArrayList<>();
        for (int p = 0; p < k; p++) {
            lists.add(new ArrayList<>());
        }
        for (int i = 0; i < batches.size(); i++) {
            lists.get(i % k).add(batches.get(i));
        }
        List<Shard> shards = new ArrayList<>();
        for (int p = 0; p < k; p++) {
            shards.add(new Shard(p, List.copyOf(lists.get(p))));
        }
        return shards;
    }
}
