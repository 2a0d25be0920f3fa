package org.d2l.multigpu.checkpoint;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The contents of one checkpoint, after epoch {@link #epoch()}: named files (DJL parameter files, encoded
 * arrays, {@code key=value} text) held as bytes, so that they can be written while the next epoch trains.
 */
public final class Checkpoint {

    private final int epoch;
    private final Map<String, byte[]> files = new LinkedHashMap<>();

    /** An empty checkpoint of the state after epoch {@code epoch}. */
    public Checkpoint(int epoch) {
        this.epoch = epoch;
    }

    /** The number of epochs finished when the checkpoint was taken. */
    public int epoch() {
        return epoch;
    }

    /** Adds file {@code name} with {@code bytes}. */
    public void put(String name, byte[] bytes) {
        if (!name.matches("[A-Za-z0-9._-]+") || name.startsWith(".")) {
            throw new IllegalArgumentException("Not a checkpoint file name: " + name);
        }
        if (files.putIfAbsent(name, bytes) != null) {
            throw new IllegalStateException("The checkpoint already holds a file " + name);
        }
    }

    /** Adds file {@code name} with one {@code key=value} line per entry of {@code values}. */
    public void putText(String name, Map<String, String> values) {
        StringBuilder s = new StringBuilder();
        values.forEach((k, v) -> {
            if (k.contains("=") || k.contains("\n") || v.contains("\n")) {
                throw new IllegalArgumentException("Cannot write " + k + "=" + v + " as one line");
            }
            s.append(k).append('=').append(v).append('\n');
        });
        put(name, s.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the checkpoint holds file {@code name}. */
    public boolean has(String name) {
        return files.containsKey(name);
    }

    /** The bytes of file {@code name}; fails when the checkpoint has none. */
    public byte[] get(String name) {
        byte[] b = files.get(name);
        if (b == null) {
            throw new IllegalStateException("The checkpoint of epoch " + epoch + " has no file " + name
                    + ": it was written by another kind of run.");
        }
        return b;
    }

    /** The {@code key=value} lines of file {@code name}, in order. */
    public Map<String, String> text(String name) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : new String(get(name), StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return values;
    }

    /** The names of the files, in the order they were added. */
    public Set<String> names() {
        return Collections.unmodifiableSet(files.keySet());
    }

    /** The total size of the files in bytes. */
    public long bytes() {
        return files.values().stream().mapToLong(b -> b.length).sum();
    }

    /**
     * Fails with what differs when {@code saved} (a checkpoint's description of its run: network shapes,
     * replicas, precision) is not {@code now}, this run's; {@code where} names the checkpoint.
     */
    public static void checkSameRun(Map<String, String> saved, Map<String, String> now, String where) {
        List<String> diffs = new ArrayList<>();
        for (String key : now.keySet()) {
            String a = saved.get(key);
            if (!now.get(key).equals(a)) {
                diffs.add(key + ": " + (a == null ? "none" : a) + " in the checkpoint, " + now.get(key) + " in this run");
            }
        }
        for (String key : saved.keySet()) {
            if (!now.containsKey(key)) {
                diffs.add(key + ": " + saved.get(key) + " in the checkpoint, none in this run");
            }
        }
        if (!diffs.isEmpty()) {
            List<String> shown = diffs.size() > 6 ? diffs.subList(0, 6) : diffs;
            throw new IllegalStateException("The checkpoint " + where + " is of another run, refused: "
                    + String.join("; ", shown) + (diffs.size() > 6 ? "; and " + (diffs.size() - 6) + " more" : "")
                    + ". Use another checkpoint folder for this run, or start afresh with optResume(false), "
                    + "which deletes that folder's checkpoints.");
        }
    }
}
