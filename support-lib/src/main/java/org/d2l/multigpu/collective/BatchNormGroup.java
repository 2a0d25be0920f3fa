package org.d2l.multigpu.collective;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Where the replicas of one training step meet at every synchronised BatchNorm ({@code models.SyncBatchNorm}): each posts its shard's
 * per-channel mean, variance and count, waits for the others, and reads all of them. The replicas run
 * their forward passes at the same time, one thread each (a replica that waited for one that runs after
 * it on the same thread would wait for ever); every layer, and every use of a layer within a step,
 * has its own meeting point.
 */
public final class BatchNormGroup {

    /** One replica's statistics of one layer: per-channel mean and biased variance over {@code count} values per channel. */
    public record Stats(NDArray mean, NDArray var, long count) {}

    private final long timeoutSeconds;
    private volatile Map<List<Object>, Meeting> meetings = new ConcurrentHashMap<>();
    private volatile int parties;

    /** A group whose replicas give up waiting for each other after {@code timeoutSeconds}. */
    public BatchNormGroup(long timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Starts a step in which the first {@code active} replicas take part. */
    public void beginStep(int active) {
        meetings = new ConcurrentHashMap<>();
        parties = active;
    }

    /** How many distinct layers the replicas met at in this step so far. */
    public int layersMet() {
        return (int) meetings.keySet().stream().map(k -> k.get(0)).distinct().count();
    }

    /** Releases every replica still waiting in this step (one failed): they fail instead of waiting. */
    public void abort() {
        meetings.values().forEach(m -> m.barrier.reset());
    }

    /** The parameter store replica {@code replica} computes with in a step of this group, over its own {@code values}. */
    public Store storeFor(int replica, ParameterStore values) {
        return new Store(this, replica, values);
    }

    private static final class Meeting {
        final Stats[] posted;
        final CyclicBarrier barrier;

        Meeting(int parties) {
            posted = new Stats[parties];
            barrier = new CyclicBarrier(parties);
        }
    }

    /** A replica's parameter store in a synchronised step: its own values, and the way to the other replicas. */
    public static final class Store extends ParameterStore {

        private final BatchNormGroup group;
        private final int replica;
        private final ParameterStore values;
        private final Map<Object, Integer> uses = new IdentityHashMap<>();

        private Store(BatchNormGroup group, int replica, ParameterStore values) {
            super(values.getManager(), false);
            this.group = group;
            this.replica = replica;
            this.values = values;
        }

        @Override
        public NDArray getValue(Parameter parameter, Device device, boolean training) {
            return values.getValue(parameter, device, training);
        }

        /**
         * Posts this replica's statistics of {@code layer}, waits for the other replicas', and returns what
         * {@code combine} makes of all of them (in replica order); returns only when every replica has
         * combined, since the arrays posted belong to their replicas, which free them after their forward pass.
         */
        public <R> R exchange(Object layer, Stats mine, Function<List<Stats>, R> combine) {
            int use = uses.merge(layer, 1, Integer::sum);
            Meeting m = group.meetings.computeIfAbsent(List.of(new Key(layer), use), k -> new Meeting(group.parties));
            m.posted[replica] = mine;
            await(m);
            R result = combine.apply(List.of(m.posted));
            await(m);
            return result;
        }

        private void await(Meeting m) {
            try {
                m.barrier.await(group.timeoutSeconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Replica " + replica + " was interrupted while waiting for the other "
                        + "replicas' BatchNorm statistics.", e);
            } catch (BrokenBarrierException | TimeoutException e) {
                throw new IllegalStateException("Replica " + replica + " stopped waiting for the other replicas' BatchNorm "
                        + "statistics: another replica failed, or did not reach the same layer within "
                        + group.timeoutSeconds + " s.", e);
            }
        }
    }

    /** A layer compared by identity. */
    private record Key(Object layer) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.layer == layer;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(layer);
        }
    }
}
