package org.d2l.multigpu.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.collective.RingSchedule;

/**
 * A training set for {@link org.d2l.multigpu.spark.driver.AllreduceTrainer AllreduceTrainer}: every global batch split over k partitions as the
 * in-process trainer splits it over k devices (shard i has n / k examples, the first n mod k one more;
 * a batch of fewer than k examples leaves the last partitions an empty shard), partition r holding shard
 * r of every batch, in order, cached on the executors; close it to free them. It keeps a reference to
 * the driver's list of batches, so that shards lost with an executor can be shipped again.
 */
public final class SplitData implements AutoCloseable {

    private final JavaSparkContext sc;
    private final List<Minibatch> batches;
    private final int k;
    private final long[] globalExamples;
    private ShardedData shards;

    private SplitData(JavaSparkContext sc, List<Minibatch> batches, int k) {
        this.sc = sc;
        this.batches = batches;
        this.k = k;
        this.globalExamples = batches.stream().mapToLong(Minibatch::size).toArray();
        this.shards = ShardedData.ofShards(sc, split(batches, k));
    }

    /** Splits each of {@code batches} (global batches, in training order) over {@code k} partitions. */
    public static SplitData of(JavaSparkContext sc, List<Minibatch> batches, int k) {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("No minibatches to train on: the data set is empty.");
        }
        return new SplitData(sc, List.copyOf(batches), k);
    }

    /** Shard r of every batch for every r, as {@link Shard}s (partition r's list holds one minibatch per step). */
    public static List<Shard> split(List<Minibatch> batches, int k) {
        List<List<Minibatch>> lists = new ArrayList<>();
        for (int r = 0; r < k; r++) {
            lists.add(new ArrayList<>());
        }
        for (Minibatch b : batches) {
            long[] sizes = RingSchedule.chunkSizes(b.size(), k); // the same cut as Devices.split's
            int from = 0;
            for (int r = 0; r < k; r++) {
                lists.get(r).add(b.slice(from, from + (int) sizes[r]));
                from += (int) sizes[r];
            }
        }
        List<Shard> out = new ArrayList<>();
        for (int r = 0; r < k; r++) {
            out.add(new Shard(r, List.copyOf(lists.get(r))));
        }
        return out;
    }

    /**
     * Ships the shards to the executors again and drops the old copies: the cached shards live only on
     * the executors that hold them (a local checkpoint), so an executor that died took its shard along.
     */
    public void reship() {
        shards.unpersist();
        shards = ShardedData.ofShards(sc, split(batches, k));
    }

    /** The cached shards, one partition per rank. */
    public ShardedData shards() {
        return shards;
    }

    /** The number of examples of each global batch, in order. */
    public long[] globalExamples() {
        return globalExamples.clone();
    }

    /** The number of partitions (ranks). */
    public int partitions() {
        return shards.partitions();
    }

    /** The global steps of one epoch. */
    public int steps() {
        return globalExamples.length;
    }

    /** The training examples of one epoch. */
    public long examples() {
        return shards.examples();
    }

    @Override
    public void close() {
        shards.close();
    }
}
