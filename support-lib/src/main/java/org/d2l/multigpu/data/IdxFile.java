package org.d2l.multigpu.data;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/** The four Fashion-MNIST IDX files, their names, and a streaming check of their contents. */
enum IdxFile {
    TRAIN_DATA("train_data", "train-images-idx3-ubyte", true),
    TRAIN_LABELS("train_labels", "train-labels-idx1-ubyte", false),
    TEST_DATA("test_data", "t10k-images-idx3-ubyte", true),
    TEST_LABELS("test_labels", "t10k-labels-idx1-ubyte", false);

    static final int SIDE = 28;

    /** The name DJL's {@code FashionMnist} looks for. */
    final String djlName;
    /** The name of the official download and of the Debian package (plus ".gz"). */
    final String officialName;

    final boolean images;

    IdxFile(String djlName, String officialName, boolean images) {
        this.djlName = djlName;
        this.officialName = officialName;
        this.images = images;
    }

    /** Names this file may have in a folder, in order of preference. */
    List<String> candidates() {
        return List.of(djlName, djlName + ".gz", officialName, officialName + ".gz");
    }

    int magic() {
        return images ? 2051 : 2049;
    }

    int headerSize() {
        return images ? 16 : 8;
    }

    long itemSize() {
        return images ? (long) SIDE * SIDE : 1;
    }

    /**
     * Streams {@code source} (gzipped or not) into {@code out} uncompressed, checking header, length
     * and label range; returns the number of images or labels, or throws {@link BrokenFileException}.
     */
    long copy(Path source, OutputStream out) throws IOException {
        try (InputStream in = open(source)) {
            byte[] header = in.readNBytes(headerSize());
            if (header.length < headerSize()) {
                throw broken(source, "it has only " + header.length + " bytes, shorter than an IDX header");
            }
            ByteBuffer buf = ByteBuffer.wrap(header);
            int magic = buf.getInt();
            if (magic != magic()) {
                throw broken(
                        source,
                        "magic number " + magic + ", expected " + magic() + " for IDX "
                                + (images ? "images" : "labels"));
            }
            long count = Integer.toUnsignedLong(buf.getInt());
            if (count == 0) {
                throw broken(source, "its header announces 0 items");
            }
            if (images && (buf.getInt() != SIDE || buf.getInt() != SIDE)) {
                buf.position(8);
                throw broken(
                        source,
                        "images are " + buf.getInt() + "x" + buf.getInt() + ", expected 28x28");
            }
            out.write(header);
            long expected = count * itemSize();
            long copied = 0;
            byte[] chunk = new byte[1 << 16];
            int n;
            while (copied < expected
                    && (n = in.read(chunk, 0, (int) Math.min(chunk.length, expected - copied))) > 0) {
                if (!images) {
                    for (int i = 0; i < n; i++) {
                        if (chunk[i] < 0 || chunk[i] > 9) {
                            throw broken(source, "label " + (chunk[i] & 0xff) + " at index "
                                    + (copied + i) + " is outside 0..9");
                        }
                    }
                }
                out.write(chunk, 0, n);
                copied += n;
            }
            if (copied < expected) {
                throw broken(source, "truncated: it holds " + copied + " of the " + expected
                        + " data bytes its header announces (" + count + " items)");
            }
            if (in.read() != -1) {
                throw broken(source, "it has extra bytes after the " + count + " items its header announces");
            }
            return count;
        } catch (EOFException e) {
            throw broken(source, "truncated: the gzip data ends early");
        } catch (ZipException e) {
            throw broken(source, "corrupt gzip data (" + e.getMessage() + ")");
        }
    }

    /** Checks a file without copying it; returns its number of items. */
    long check(Path source) throws IOException {
        return copy(source, OutputStream.nullOutputStream());
    }

    /** Whether the file starts with the gzip magic bytes. */
    static boolean gzipped(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    private static InputStream open(Path file) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        return gzipped(file) ? new GZIPInputStream(in, 1 << 16) : in;
    }

    static BrokenFileException broken(Path file, String what) {
        return new BrokenFileException(
                "Broken Fashion-MNIST file "
                        + file.toAbsolutePath()
                        + ": "
                        + what
                        + ". It was left unchanged; replace it with an intact copy (or delete it)"
                        + " and retry. For the Debian files: apt-get install --reinstall"
                        + " dataset-fashion-mnist.");
    }

    /** Thrown for an IDX file whose contents are not what Fashion-MNIST needs. */
    static final class BrokenFileException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        BrokenFileException(String message) {
            super(message);
        }
    }
}
