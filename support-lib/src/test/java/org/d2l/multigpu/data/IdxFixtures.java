package org.d2l.multigpu.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes small Fashion-MNIST-like IDX files with known pixels and labels. */
final class IdxFixtures {

    static final int TRAIN = 20;
    static final int TEST = 8;

    /** How the files are named in a fixture folder. */
    enum Naming {
        OFFICIAL,
        DJL
    }

    private IdxFixtures() {}

    /** Pixel {@code index} (row * 28 + column) of image {@code image}, 0..255. */
    static int pixel(int image, int index) {
        return (image * 37 + index * 3) % 256;
    }

    static int trainLabel(int i) {
        return i % 10;
    }

    static int testLabel(int i) {
        return 9 - i % 10;
    }

    static byte[] images(int count) {
        return images(count, 2051, 28, 28);
    }

    static byte[] images(int count, int magic, int rows, int cols) {
        ByteBuffer buf = ByteBuffer.allocate(16 + count * rows * cols);
        buf.putInt(magic).putInt(count).putInt(rows).putInt(cols);
        for (int i = 0; i < count; i++) {
            for (int p = 0; p < rows * cols; p++) {
                buf.put((byte) pixel(i, p));
            }
        }
        return buf.array();
    }

    static byte[] labels(int count, boolean test) {
        ByteBuffer buf = ByteBuffer.allocate(8 + count);
        buf.putInt(2049).putInt(count);
        for (int i = 0; i < count; i++) {
            buf.put((byte) (test ? testLabel(i) : trainLabel(i)));
        }
        return buf.array();
    }

    static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(bos)) {
            out.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bos.toByteArray();
    }

    /** File name of a part in a fixture folder. */
    static String name(IdxFile part, Naming naming, boolean gz) {
        return (naming == Naming.DJL ? part.djlName : part.officialName) + (gz ? ".gz" : "");
    }

    /** Writes a complete set of four files into {@code dir} and returns it. */
    static Path writeSet(Path dir, Naming naming, boolean gz, int train, int test)
            throws IOException {
        Files.createDirectories(dir);
        write(dir.resolve(name(IdxFile.TRAIN_DATA, naming, gz)), images(train), gz);
        write(dir.resolve(name(IdxFile.TRAIN_LABELS, naming, gz)), labels(train, false), gz);
        write(dir.resolve(name(IdxFile.TEST_DATA, naming, gz)), images(test), gz);
        write(dir.resolve(name(IdxFile.TEST_LABELS, naming, gz)), labels(test, true), gz);
        return dir;
    }

    static void write(Path file, byte[] bytes, boolean gz) throws IOException {
        Files.write(file, gz ? gzip(bytes) : bytes);
    }
}
