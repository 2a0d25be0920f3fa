package org.d2l.multigpu.data;

import ai.djl.training.dataset.BatchSampler;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.RandomSampler;
import ai.djl.training.dataset.Sampler;
import java.util.Iterator;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.d2l.multigpu.runtime.DjlFields;

/**
 * The order of an epoch's examples as a function of a seed and the epoch's number: DJL's
 * {@link RandomSampler} draws from one generator shared by the whole process, so the order of epoch e
 * depends on everything drawn before it, and a run resumed in a new process would read other batches.
 */
public final class DataOrder implements Sampler.SubSampler {

    private final long seed;
    private final int epoch;

    private DataOrder(long seed, int epoch) {
        this.seed = seed;
        this.epoch = epoch;
    }

    /**
     * The sampler of epoch {@code epoch} of {@code data} under {@code seed}: when the data set samples at
     * random in batches (DJL's {@code setSampling(batchSize, true)}), the same batches in an order drawn
     * from (seed, epoch); otherwise null, meaning its own sampler (in order, or the user's own).
     */
    public static Sampler of(RandomAccessDataset data, long seed, int epoch) {
        Object sampler = field(RandomAccessDataset.class, "sampler", data);
        if (!(sampler instanceof BatchSampler batches)
                || !(field(BatchSampler.class, "subSampler", batches) instanceof RandomSampler)) {
            return null;
        }
        boolean dropLast = (Boolean) field(BatchSampler.class, "dropLast", batches);
        return new BatchSampler(new DataOrder(seed, epoch), batches.getBatchSize(), dropLast);
    }

    @Override
    public Iterator<Long> sample(RandomAccessDataset dataset) {
        long n = dataset.size();
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Too many examples to shuffle: " + n);
        }
        long[] index = LongStream.range(0, n).toArray();
        SplittableRandom random = new SplittableRandom(seed).split();
        for (int e = 1; e < epoch; e++) {
            random = random.split(); // epoch e's generator: the e-th split of the seed's
        }
        for (int i = index.length - 1; i > 0; i--) { // Fisher-Yates
            int j = random.nextInt(i + 1);
            long t = index[i];
            index[i] = index[j];
            index[j] = t;
        }
        return LongStream.of(index).iterator();
    }

    private static Object field(Class<?> owner, String name, Object of) {
        return DjlFields.get(owner, name, of, "the trainer's data order (how the data set samples)");
    }
}
