package org.d2l.multigpu.plot;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Writes output files: creates parent directories, replaces a writable regular file, refuses anything else. */
final class OutputFiles {

    private OutputFiles() {}

    /** Writes the bytes and returns the absolute path written. */
    static Path write(Path file, byte[] bytes) throws IOException {
        if (file == null) {
            throw new IllegalArgumentException("output path must not be null");
        }
        Path target = file.toAbsolutePath().normalize();
        if (Files.isDirectory(target)) {
            throw new IOException("cannot write " + target + ": it is a directory, not a file");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(target)) {
            throw new IOException("refusing to overwrite " + target + ": it exists and is not a regular file");
        }
        if (Files.isRegularFile(target) && !Files.isWritable(target)) {
            throw new IOException("cannot overwrite " + target + ": the existing file is not writable");
        }
        Path parent = target.getParent();
        if (parent != null) {
            try {
                Files.createDirectories(parent);
            } catch (FileAlreadyExistsException e) {
                throw new IOException("cannot create directory " + e.getFile() + " for " + target
                        + ": a file of that name exists", e);
            }
        }
        Files.write(target, bytes);
        return target;
    }
}
