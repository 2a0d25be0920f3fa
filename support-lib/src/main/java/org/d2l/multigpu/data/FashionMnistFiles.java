package org.d2l.multigpu.data;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Finds Fashion-MNIST IDX files in a folder and unpacks them into a cache folder DJL can read. */
final class FashionMnistFiles {

    /** Records which source files the cache was made from. */
    static final String STAMP = "SOURCE.txt";

    private FashionMnistFiles() {}

    /** Returns the files found in {@code folder} under DJL or official names (possibly fewer than four). */
    static Map<IdxFile, Path> find(Path folder) {
        Map<IdxFile, Path> found = new EnumMap<>(IdxFile.class);
        if (!Files.isDirectory(folder)) {
            return found;
        }
        for (IdxFile part : IdxFile.values()) {
            for (String name : part.candidates()) {
                Path file = folder.resolve(name);
                if (Files.isRegularFile(file)) {
                    found.put(part, file);
                    break;
                }
            }
        }
        return found;
    }

    /** Returns the cache folder: D2L_DATA_CACHE, else the project's build/data/fashion-mnist, else a temp folder. */
    static Path defaultCacheDir(Settings settings, Path workDir, Path tmpDir) {
        if (settings.dataCache().isPresent()) {
            return settings.dataCache().get().toAbsolutePath();
        }
        for (Path dir = workDir.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("support-lib"))) {
                return dir.resolve("build").resolve("data").resolve("fashion-mnist");
            }
        }
        return tmpDir.toAbsolutePath().resolve("d2l-multigpu").resolve("fashion-mnist");
    }

    /**
     * Returns a folder holding the four uncompressed files under DJL's names: the source folder
     * itself when it already is one, else {@code cacheDir}, unpacked anew when the sources changed.
     * Every file is checked; source files are only read.
     */
    static Path prepare(Map<IdxFile, Path> sources, Path cacheDir) throws IOException {
        Path folder = sources.get(IdxFile.TRAIN_DATA).toAbsolutePath().getParent();
        if (usableInPlace(sources, folder)) {
            Map<IdxFile, Long> counts = new EnumMap<>(IdxFile.class);
            for (IdxFile part : IdxFile.values()) {
                counts.put(part, part.check(sources.get(part)));
            }
            checkCounts(sources, counts);
            return folder;
        }
        String stamp = stamp(sources);
        if (cacheUpToDate(cacheDir, stamp)) {
            return cacheDir;
        }
        unpack(sources, cacheDir, stamp);
        return cacheDir;
    }

    private static boolean usableInPlace(Map<IdxFile, Path> sources, Path folder)
            throws IOException {
        for (IdxFile part : IdxFile.values()) {
            Path file = sources.get(part).toAbsolutePath();
            if (!file.equals(folder.resolve(part.djlName)) || IdxFile.gzipped(file)) {
                return false;
            }
        }
        return true;
    }

    private static String stamp(Map<IdxFile, Path> sources) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (IdxFile part : IdxFile.values()) {
            Path file = sources.get(part).toAbsolutePath();
            sb.append(part.djlName).append('\t').append(file).append('\t')
                    .append(Files.size(file)).append('\t')
                    .append(Files.getLastModifiedTime(file).toMillis()).append('\n');
        }
        return sb.toString();
    }

    private static boolean cacheUpToDate(Path cacheDir, String stamp) throws IOException {
        Path stampFile = cacheDir.resolve(STAMP);
        if (!Files.isRegularFile(stampFile)
                || !Files.readString(stampFile, StandardCharsets.UTF_8).equals(stamp)) {
            return false;
        }
        try {
            Map<IdxFile, Path> cached = new EnumMap<>(IdxFile.class);
            Map<IdxFile, Long> counts = new EnumMap<>(IdxFile.class);
            for (IdxFile part : IdxFile.values()) {
                Path file = cacheDir.resolve(part.djlName);
                cached.put(part, file);
                counts.put(part, part.check(file));
            }
            checkCounts(cached, counts);
            return true;
        } catch (IllegalStateException | IOException e) {
            return false; // our own cache is damaged: make it again
        }
    }

    private static void unpack(Map<IdxFile, Path> sources, Path cacheDir, String stamp)
            throws IOException {
        Files.createDirectories(cacheDir);
        Files.deleteIfExists(cacheDir.resolve(STAMP));
        List<Path> temps = new ArrayList<>();
        try {
            Map<IdxFile, Long> counts = new EnumMap<>(IdxFile.class);
            for (IdxFile part : IdxFile.values()) {
                Path tmp = tempFile(cacheDir, part.djlName);
                temps.add(tmp);
                try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW)) {
                    counts.put(part, part.copy(sources.get(part), out));
                }
            }
            checkCounts(sources, counts);
            for (IdxFile part : IdxFile.values()) {
                move(temps.get(part.ordinal()), cacheDir.resolve(part.djlName));
            }
            Path stampTmp = tempFile(cacheDir, STAMP);
            temps.add(stampTmp);
            Files.writeString(stampTmp, stamp, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
            move(stampTmp, cacheDir.resolve(STAMP));
        } finally {
            for (Path tmp : temps) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** A fresh name next to the final file (plain permissions, unlike Files.createTempFile's 0600). */
    private static Path tempFile(Path dir, String name) {
        return dir.resolve(name + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".part");
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void checkCounts(Map<IdxFile, Path> files, Map<IdxFile, Long> counts) {
        List<String> problems = new ArrayList<>();
        for (IdxFile[] pair :
                new IdxFile[][] {
                    {IdxFile.TRAIN_DATA, IdxFile.TRAIN_LABELS}, {IdxFile.TEST_DATA, IdxFile.TEST_LABELS}
                }) {
            long images = counts.get(pair[0]);
            long labels = counts.get(pair[1]);
            if (images != labels) {
                problems.add(files.get(pair[0]).toAbsolutePath() + " holds " + images
                        + " images but " + files.get(pair[1]).toAbsolutePath() + " holds "
                        + labels + " labels");
            }
        }
        if (!problems.isEmpty()) {
            throw new IdxFile.BrokenFileException(
                    "Fashion-MNIST files do not match: " + String.join("; ", problems)
                            + ". They were left unchanged; replace them with a matching set and retry.");
        }
    }
}
