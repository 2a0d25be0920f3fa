package org.d2l.multigpu.loop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The listeners of one run as one: those every run gets (from the {@link EpochListener.Provider}s on the
 * class path) first, then the run's own; each event goes to all of them in that order.
 */
public final class RunListeners implements EpochListener {

    private static final List<EpochListener.Provider> PROVIDERS = ServiceLoader
            .load(EpochListener.Provider.class, EpochListener.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get).toList();

    private final List<EpochListener> all;

    private RunListeners(List<EpochListener> all) {
        this.all = List.copyOf(all);
    }

    /** The standard listeners of a run ({@code progress}: whether it wants a progress line) followed by {@code own}. */
    public static RunListeners of(boolean progress, EpochListener... own) {
        List<EpochListener> list = new ArrayList<>();
        for (EpochListener.Provider p : PROVIDERS) {
            list.add(p.newListener(progress));
        }
        list.addAll(Arrays.asList(own));
        return new RunListeners(list);
    }

    @Override
    public void onFitStart(int numEpochs) {
        all.forEach(l -> l.onFitStart(numEpochs));
    }

    @Override
    public void onEpochStart(int epoch, long examples) {
        all.forEach(l -> l.onEpochStart(epoch, examples));
    }

    @Override
    public void onStep(int epoch, long examplesSeen, double meanLoss) {
        all.forEach(l -> l.onStep(epoch, examplesSeen, meanLoss));
    }

    @Override
    public void onEpoch(EpochMetrics metrics) {
        all.forEach(l -> l.onEpoch(metrics));
    }

    @Override
    public void onInterrupt(TrainingInterruptedException stop) {
        all.forEach(l -> l.onInterrupt(stop));
    }

    @Override
    public void onCheckpointNote(String message) {
        all.forEach(l -> l.onCheckpointNote(message));
    }
}
