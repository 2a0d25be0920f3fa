package org.d2l.multigpu.lesson;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Runs several settings once per round, taking turns, so that a slow spell of the machine hits them all alike. */
public final class InTurns {

    private InTurns() {}

    /**
     * Runs {@code step} on every setting in turn, one warm-up round that is not kept and then {@code rounds}
     * rounds; the results per setting, in the order of the rounds (entry i of each list is round i's).
     */
    public static <K, T> Map<K, List<T>> run(int rounds, List<K> settings, Function<K, T> step) {
        if (rounds < 1) {
            throw new IllegalArgumentException("run at least one round, got " + rounds + ".");
        }
        if (settings.isEmpty() || settings.stream().distinct().count() != settings.size()) {
            throw new IllegalArgumentException("give one or more settings, each once; got " + settings + ".");
        }
        Map<K, List<T>> results = new LinkedHashMap<>();
        settings.forEach(s -> results.put(s, new ArrayList<>()));
        for (int round = -1; round < rounds; round++) {
            for (K setting : settings) {
                T result = step.apply(setting);
                if (round >= 0) {
                    results.get(setting).add(result);
                }
            }
        }
        return results;
    }
}
