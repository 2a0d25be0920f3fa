package org.d2l.multigpu.lesson;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The results of a lesson's training cells by name: a cell that fails leaves its reason, and a later cell
 * that reads its result gets an error that gives it, instead of a null.
 */
public final class Results {

    private final Map<String, Object> done = new HashMap<>();
    private final Map<String, RuntimeException> failed = new HashMap<>();

    /** Runs {@code work} as the cell {@code name} and keeps its result; if it fails, keeps why and rethrows. */
    public <T> T run(String name, Supplier<T> work) {
        done.remove(name);
        failed.remove(name);
        try {
            T result = work.get();
            done.put(name, result);
            return result;
        } catch (RuntimeException e) {
            failed.put(name, e);
            throw e;
        }
    }

    /** The result of the cell {@code name}, or an error that says why there is none. */
    @SuppressWarnings("unchecked")
    public <T> T get(String name) {
        if (done.containsKey(name)) {
            return (T) done.get(name);
        }
        RuntimeException why = failed.get(name);
        throw new IllegalStateException("The " + name + " did not finish: " + (why != null ? why.getMessage()
                : "run its cell first."), why);
    }
}
