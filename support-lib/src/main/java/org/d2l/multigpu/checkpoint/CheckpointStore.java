package org.d2l.multigpu.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The checkpoints of one run on disk: checkpoint e is the folder {@code epoch-000e} holding its files and
 * {@code SHA256SUMS} (their SHA-256, as {@code sha256sum -c} checks it). A checkpoint is written into a
 * hidden {@code .writing-} folder, synced to disk and renamed into place in one step, so a kill while
 * writing leaves the previous checkpoints as they were; a checksum that does not match finds a truncated
 * or changed file when it is read.
 */
public final class CheckpointStore {

    /** Test hook: milliseconds to pause after the first file of a checkpoint is written (a kill lands mid-write). */
    public static final String PAUSE_PROPERTY = "d2l.checkpoint.pauseMillis";

    private static final String SUMS = "SHA256SUMS";
    private static final Pattern FOLDER = Pattern.compile("epoch-(\\d{4,})");

    private final CheckpointPolicy settings;

    /** The store of {@code settings}' directory. */
    public CheckpointStore(CheckpointPolicy settings) {
        this.settings = settings;
    }

    /** The folder name of the checkpoint after epoch {@code epoch}. */
    static String folder(int epoch) {
        return String.format(java.util.Locale.ROOT, "epoch-%04d", epoch);
    }

    /** The folder of checkpoint {@code epoch}. */
    public Path path(int epoch) {
        return settings.dir().resolve(folder(epoch));
    }

    /**
     * Writes {@code c} as checkpoint {@code c.epoch()} (replacing one of that epoch), then removes the
     * checkpoints of later epochs (an abandoned continuation) and all but the last {@code keep}.
     */
    public Path write(Checkpoint c) {
        Path dir = settings.dir();
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempDirectory(dir, ".writing-" + folder(c.epoch()) + "-");
            StringBuilder sums = new StringBuilder();
            boolean first = true;
            for (String name : c.names()) {
                byte[] bytes = c.get(name);
                writeSynced(tmp.resolve(name), bytes);
                sums.append(HexFormat.of().formatHex(sha256(bytes))).append("  ").append(name).append('\n');
                if (first) {
                    first = false;
                    pauseForTests();
                }
            }
            writeSynced(tmp.resolve(SUMS), sums.toString().getBytes(StandardCharsets.UTF_8));
            syncFolder(tmp);
            Path target = path(c.epoch());
            if (Files.exists(target)) {
                Path old = Files.createTempDirectory(dir, ".replaced-");
                Files.move(target, old.resolve("old"), StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            syncFolder(dir);
            prune(c.epoch());
            return target;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not write the checkpoint of epoch " + c.epoch() + " to " + dir
                    + ": " + ex.getMessage() + ". The previous checkpoints are kept.", ex);
        }
    }

    /** The epochs of the checkpoint folders in the directory, newest first (valid or not). */
    public List<Integer> epochs() {
        List<Integer> epochs = new ArrayList<>();
        if (!Files.isDirectory(settings.dir())) {
            return epochs;
        }
        try (Stream<Path> s = Files.list(settings.dir())) {
            s.forEach(p -> {
                Matcher m = FOLDER.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p)) {
                    epochs.add(Integer.parseInt(m.group(1)));
                }
            });
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not list the checkpoints in " + settings.dir() + ": " + ex, ex);
        }
        epochs.sort(Comparator.reverseOrder());
        return epochs;
    }

    /** Reads checkpoint {@code epoch}, checking every file against its checksum; fails saying what is wrong. */
    public Checkpoint read(int epoch) {
        Path folder = path(epoch);
        try {
            Path sumsFile = folder.resolve(SUMS);
            if (!Files.isRegularFile(sumsFile)) {
                throw new IllegalStateException(folder + " has no " + SUMS + " (an incomplete checkpoint)");
            }
            Map<String, String> sums = new LinkedHashMap<>();
            for (String line : Files.readAllLines(sumsFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    int sp = line.indexOf("  ");
                    if (sp != 64) {
                        throw new IllegalStateException(sumsFile + " is damaged (line \"" + line + "\")");
                    }
                    sums.put(line.substring(sp + 2), line.substring(0, sp));
                }
            }
            Checkpoint c = new Checkpoint(epoch);
            for (Map.Entry<String, String> e : sums.entrySet()) {
                Path f = folder.resolve(e.getKey());
                if (!Files.isRegularFile(f)) {
                    throw new IllegalStateException(f + " is missing");
                }
                byte[] bytes = Files.readAllBytes(f);
                if (!HexFormat.of().formatHex(sha256(bytes)).equals(e.getValue())) {
                    throw new IllegalStateException(f + " does not match its SHA-256 checksum (truncated or changed, "
                            + bytes.length + " bytes)");
                }
                c.put(e.getKey(), bytes);
            }
            return c;
        } catch (IOException ex) {
            throw new IllegalStateException("Could not read " + folder + ": " + ex, ex);
        }
    }

    /**
     * The newest checkpoint of an epoch after {@code after} and at most {@code upTo} (0: no limit) that
     * reads back whole, or null; each damaged one skipped on the way is told to {@code notes}.
     */
    public Checkpoint newestValid(int after, int upTo, Consumer<String> notes) {
        for (int e : epochs()) {
            if (e <= after || (upTo > 0 && e > upTo)) {
                continue;
            }
            try {
                return read(e);
            } catch (IllegalStateException ex) {
                notes.accept("Checkpoint of epoch " + e + " skipped: " + ex.getMessage()
                        + "; trying the one before it.");
            }
        }
        return null;
    }

    /** Removes every checkpoint of the directory (and unfinished writes); returns how many checkpoints it removed. */
    public int clear() {
        List<Integer> all = epochs();
        for (int e : all) {
            delete(path(e));
        }
        removeUnfinished();
        return all.size();
    }

    /** Removes the checkpoints of epochs after {@code newest}, all but the last {@code keep}, and unfinished writes. */
    private void prune(int newest) {
        int kept = 0;
        for (int e : epochs()) {
            if (e > newest || ++kept > settings.keep()) {
                delete(path(e));
            }
        }
        removeUnfinished();
    }

    private void removeUnfinished() {
        try (Stream<Path> s = Files.list(settings.dir())) {
            s.filter(p -> p.getFileName().toString().startsWith(".writing-")
                    || p.getFileName().toString().startsWith(".replaced-")).forEach(CheckpointStore::delete);
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not clean up " + settings.dir() + ": " + ex, ex);
        }
    }

    private static void delete(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not remove old checkpoint " + p + ": " + ex, ex);
        }
    }

    private static void writeSynced(Path f, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
    }

    /** Syncs a folder's entries to disk where the file system allows it (Linux does; others may not). */
    private static void syncFolder(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ex) {
            // not supported here (Windows): the rename is still atomic
        }
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("This JVM has no SHA-256", ex);
        }
    }

    private static void pauseForTests() {
        long ms = Long.getLong(PAUSE_PROPERTY, 0L);
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
