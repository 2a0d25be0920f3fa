package org.d2l.multigpu.spark;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * A training set spread over Spark partitions, one {@link Shard} each, kept in the executors'
 * memory between rounds; close it (or call {@link #unpersist}) to free it.
 */
public final class ShardedData implements AutoCloseable {

    private final JavaRDD<Shard> rdd;
    private final int partitions;
    private final int[] batchesPerPartition;
    private final long examples;

    private ShardedData(JavaRDD<Shard> rdd, List<Shard> shards) {
        this.rdd = rdd;
        this.partitions = shards.size();
        this.batchesPerPartition = shards.stream().mapToInt(s -> s.batches().size()).toArray();
        this.examples = shards.stream().flatMap(s -> s.batches().stream()).mapToLong(Minibatch::size).sum();
    }

    /**
     * Deals {@code batches} round robin over {@code k} partitions (partition p gets minibatches p,
     * p + k, ...), ships them to the executors once, and keeps them there.
     */
    public static ShardedData of(JavaSparkContext sc, List<Minibatch> batches, int k) {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("No minibatches to train on: the data set is empty.");
        }
        return ofShards(sc, Shard.deal(batches, k));
    }

    /** Ships {@code shards} (shard p to partition p) to the executors once and keeps them there. */
    public static ShardedData ofShards(JavaSparkContext sc, List<Shard> shards) {
        int k = shards.size();
        // One element per slice: parallelize cuts a list of k elements into k slices of one.
        JavaRDD<Shard> rdd = sc.parallelize(shards, k).persist(StorageLevel.MEMORY_AND_DISK());
        // Cut the lineage: later rounds' tasks then carry only a reference to the cached blocks,
        // not the data inside the parallelized collection.
        rdd.rdd().localCheckpoint();
        rdd.count();
        return new ShardedData(rdd, shards);
    }

    /** The cached shards. */
    public JavaRDD<Shard> rdd() {
        return rdd;
    }

    /** The number of partitions. */
    public int partitions() {
        return partitions;
    }

    /** The number of minibatches of the largest shard (partition 0's): local steps in one epoch. */
    public int stepsPerEpoch() {
        int max = 0;
        for (int n : batchesPerPartition) {
            max = Math.max(max, n);
        }
        return max;
    }

    /** The number of training examples over all partitions. */
    public long examples() {
        return examples;
    }

    /** Frees the cached shards on the executors. */
    public void unpersist() {
        rdd.unpersist(false);
    }

    @Override
    public void close() {
        unpersist();
    }
}
