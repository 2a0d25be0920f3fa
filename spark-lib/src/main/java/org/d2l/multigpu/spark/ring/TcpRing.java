package org.d2l.multigpu.spark.ring;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.d2l.multigpu.collective.RingSchedule;

/**
 * One rank's place in a ring of k processes over TCP: it listens on its own address only, learns
 * the others' addresses and a random token of the stage through one all-gather (Spark's
 * {@code BarrierTaskContext.allGather}), connects to rank + 1 and accepts only rank - 1 presenting
 * that token; then {@link #allreduce} sums float arrays in buckets with the {@link RingSchedule}
 * of the in-process ring, and {@link #allGather(byte[][])} passes compressed messages round it. Every connect, accept and read has a timeout; bytes are counted as the ring
 * writes and reads them (above the sockets' buffers, so a read-ahead never counts early).
 */
public final class TcpRing implements AutoCloseable {

    private static final long PEER_FAILED_PAUSE_MILLIS = 500;
    /** The largest message a rank accepts (1 GiB): a longer length read means the peers are out of step. */
    private static final int MAX_MESSAGE_BYTES = 1 << 30;

    private final int rank;
    private final int k;
    private final long timeoutMillis;
    private final Socket toNext;
    private final Socket fromPrevious;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final CountingStreams counted;
    private final ExecutorService sender;
    private final int refused;
    private final long handshakeBytes;

    private TcpRing(int rank, int k, long timeoutMillis, Socket toNext, Socket fromPrevious, CountingStreams counted,
            int refused) throws IOException {
        this.rank = rank;
        this.k = k;
        this.timeoutMillis = timeoutMillis;
        this.toNext = toNext;
        this.fromPrevious = fromPrevious;
        this.counted = counted;
        // Counted above the buffers: what the allreduce wrote and read, not what a read-ahead took early.
        this.out = new DataOutputStream(counted.out);
        this.in = new DataInputStream(counted.in);
        this.refused = refused;
        this.handshakeBytes = counted.sent + counted.received;
        counted.sent = 0;
        counted.received = 0;
        this.sender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ring-send-" + rank);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Joins the ring as {@code rank} of {@code k}: listens on {@code host} (this executor's address,
     * never the wildcard), posts "host port nonce" through {@code allGather} (which must return every
     * rank's message in rank order), derives the stage's token from all nonces, connects to the next
     * rank and accepts the previous one ({@link RingHandshake}). Connections without the token are closed
     * and counted; no valid peer within {@code timeout} fails with a message saying which rank was waited for.
     */
    public static TcpRing join(int rank, int k, String host, Function<String, String[]> allGather, Duration timeout)
            throws IOException {
        RingHandshake.Peers peers = RingHandshake.connect(rank, k, host, allGather, timeout.toMillis());
        CountingStreams counted = new CountingStreams(new BufferedOutputStream(peers.toNext().getOutputStream(), 1 << 16),
                new BufferedInputStream(peers.fromPrevious().getInputStream(), 1 << 16));
        counted.sent = RingHandshake.HELLO_BYTES;
        counted.received = RingHandshake.HELLO_BYTES;
        return new TcpRing(rank, k, timeout.toMillis(), peers.toNext(), peers.fromPrevious(), counted, peers.refused());
    }

    /**
     * Sums {@code data} elementwise over the ring, in place, bucket by bucket of at most {@code bucket}
     * elements: each bucket is ring-allreduced (k - 1 reduce-scatter steps that add the received chunk to
     * this rank's own, k - 1 all-gather steps that keep it), so every rank ends with the same sums.
     */
    public void allreduce(float[] data, int bucket) throws IOException {
        if (bucket < 1) {
            throw new IllegalArgumentException("A bucket holds at least one element, got " + bucket + ".");
        }
        for (int start = 0; start < data.length; start += bucket) {
            RingSchedule ring = RingSchedule.allreduce(Math.min(bucket, data.length - start), k);
            for (int s = 0; s < ring.steps(); s++) {
                exchange(data, start, ring, ring.reduceScatterSend(rank, s), ring.reduceScatterReceive(rank, s), true);
            }
            for (int s = 0; s < ring.steps(); s++) {
                exchange(data, start, ring, ring.allGatherSend(rank, s), ring.allGatherReceive(rank, s), false);
            }
        }
    }

    /**
     * The first half of {@link #allreduce}, without buckets: in k - 1 ring steps every rank sends one chunk
     * to the next, which adds it to its own, until chunk {@code rank} of this rank's {@code data} (chunks
     * as {@link RingSchedule#ownChunks}) holds the sum over all ranks; the other chunks hold partial sums.
     */
    public void reduceScatter(float[] data) throws IOException {
        RingSchedule ring = RingSchedule.ownChunks(data.length, k);
        for (int s = 0; s < ring.steps(); s++) {
            exchange(data, 0, ring, ring.reduceScatterSend(rank, s), ring.reduceScatterReceive(rank, s), true);
        }
    }

    /**
     * The second half of {@link #allreduce}, without buckets: chunk {@code rank} of this rank's {@code data}
     * (chunks as {@link RingSchedule#ownChunks}) travels round the ring in k - 1 steps, so that afterwards
     * every rank's data holds every rank's own chunk.
     */
    public void allGather(float[] data) throws IOException {
        RingSchedule ring = RingSchedule.ownChunks(data.length, k);
        for (int s = 0; s < ring.steps(); s++) {
            exchange(data, 0, ring, ring.allGatherSend(rank, s), ring.allGatherReceive(rank, s), false);
        }
    }

    /** The number of ranks in the ring. */
    public int size() {
        return k;
    }

    /**
     * Every rank's message to every other, round the ring: entry {@code rank} of {@code messages} is this
     * rank's; in k - 1 steps each rank passes the message it last received (its own first) to the next,
     * each framed by its length, so that afterwards every entry holds its rank's message.
     */
    public void allGather(byte[][] messages) throws IOException {
        if (messages.length != k) {
            throw new IllegalArgumentException("An all-gather of messages takes one entry per rank of the ring (" + k
                    + "), got " + messages.length + ".");
        }
        if (messages[rank] == null) {
            throw new IllegalArgumentException("Entry " + rank + " of an all-gather of messages, this rank's own "
                    + "message, is null.");
        }
        for (int s = 0; s < k - 1; s++) {
            messages[(rank + k - s - 1) % k] = swap(messages[(rank + k - s) % k], -1);
        }
    }

    /** Sends chunk {@code send} to the next rank while receiving chunk {@code receive} from the previous one. */
    private void exchange(float[] data, int offset, RingSchedule ring, int send, int receive, boolean add)
            throws IOException {
        int sendFrom = offset + (int) ring.chunkStart(send);
        int sendCount = (int) ring.chunkSize(send);
        ByteBuffer buf = ByteBuffer.allocate(4 * sendCount).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(data, sendFrom, sendCount);
        int from = offset + (int) ring.chunkStart(receive);
        int count = (int) ring.chunkSize(receive);
        byte[] bytes = swap(buf.array(), 4 * count);
        var floats = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        for (int i = 0; i < count; i++) {
            data[from + i] = add ? data[from + i] + floats.get(i) : floats.get(i);
        }
    }

    /**
     * Sends {@code outgoing} to the next rank while receiving {@code incoming} bytes from the previous one;
     * with {@code incoming} of -1 both are framed by their length (messages whose size the receiver does not know).
     */
    private byte[] swap(byte[] outgoing, int incoming) throws IOException {
        Future<?> sending = sender.submit(() -> {
            if (incoming < 0) {
                out.writeInt(outgoing.length);
            }
            out.write(outgoing);
            out.flush();
            return null;
        });
        byte[] bytes;
        try {
            int length = incoming < 0 ? in.readInt() : incoming;
            if (length < 0 || length > MAX_MESSAGE_BYTES) {
                throw new IOException("Rank " + rank + " read a message of " + length + " bytes from rank "
                        + (rank + k - 1) % k + ": the ring is out of step; the barrier stage fails.");
            }
            bytes = new byte[length];
            in.readFully(bytes);
        } catch (SocketTimeoutException ex) {
            throw new IOException("Rank " + rank + " waited more than " + timeoutMillis + " ms for rank "
                    + (rank + k - 1) % k + "'s gradients: the peer is stuck or gone; the barrier stage fails "
                    + "(raise the timeout if one step takes longer).", ex);
        } catch (java.io.EOFException ex) {
            // The peer failed first: let its task's failure reach the driver first, so that Spark's
            // message (which names one failed task) gives the cause, not this consequence.
            pause(PEER_FAILED_PAUSE_MILLIS);
            throw new IOException("Rank " + (rank + k - 1) % k + " closed the ring while rank " + rank
                    + " waited for its gradients: it failed; the barrier stage fails.", ex);
        }
        try {
            sending.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            throw new IOException("Rank " + rank + " could not send its gradients to rank " + (rank + 1) % k
                    + " within " + timeoutMillis + " ms: the peer is stuck; the barrier stage fails.", ex);
        } catch (ExecutionException ex) {
            throw new IOException("Rank " + rank + " could not send to rank " + (rank + 1) % k + ": "
                    + ex.getCause().getMessage(), ex.getCause());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("Rank " + rank + " was interrupted while sending (the stage was cancelled).", ex);
        }
        return bytes;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt(); // the stage is being cancelled: fail at once
        }
    }

    /** Bytes this rank wrote to the next rank's socket since it joined, handshake excluded. */
    public long bytesSent() {
        return counted.sent;
    }

    /** Bytes this rank read from the previous rank's socket since it joined, handshake excluded. */
    public long bytesReceived() {
        return counted.received;
    }

    /** Bytes of the two hellos (magic, token, rank) this rank sent and received when it joined. */
    public long handshakeBytes() {
        return handshakeBytes;
    }

    /** How many connections without the stage's token (or from the wrong rank) this rank closed. */
    public int refusedConnections() {
        return refused;
    }

    /** This rank. */
    public int rank() {
        return rank;
    }

    /** Closes both connections (a peer waiting on this rank then fails at once instead of at its timeout). */
    @Override
    public void close() {
        sender.shutdownNow();
        for (Socket s : new Socket[] {toNext, fromPrevious}) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** A socket's two (buffered) streams with the bytes written to and read from them. */
    private static final class CountingStreams {
        volatile long sent;
        volatile long received;
        final OutputStream out;
        final InputStream in;

        CountingStreams(OutputStream rawOut, InputStream rawIn) {
            this.out = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    rawOut.write(b);
                    sent++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    rawOut.write(b, off, len);
                    sent += len;
                }

                @Override
                public void flush() throws IOException {
                    rawOut.flush();
                }
            };
            this.in = new InputStream() {
                @Override
                public int read() throws IOException {
                    int b = rawIn.read();
                    if (b >= 0) {
                        received++;
                    }
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = rawIn.read(b, off, len);
                    if (n > 0) {
                        received += n;
                    }
                    return n;
                }
            };
        }
    }
}
