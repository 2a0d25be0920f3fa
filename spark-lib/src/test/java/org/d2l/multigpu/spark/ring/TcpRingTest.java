package org.d2l.multigpu.spark.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.d2l.multigpu.collective.Ring;
import org.d2l.multigpu.collective.RingSchedule;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

/** The TCP ring on its own: k ranks on threads of this JVM, on 127.0.0.1, with an all-gather in memory. */
class TcpRingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** What BarrierTaskContext.allGather does for k tasks: every rank gets every rank's message, in rank order. */
    private static final class AllGather {
        final String[] messages;
        final CyclicBarrier barrier;

        AllGather(int k) {
            messages = new String[k];
            barrier = new CyclicBarrier(k);
        }

        Function<String, String[]> forRank(int rank) {
            return message -> {
                messages[rank] = message;
                try {
                    barrier.await();
                } catch (InterruptedException | BrokenBarrierException ex) {
                    throw new IllegalStateException(ex);
                }
                return messages.clone();
            };
        }
    }

    static float[][] data(int k, int n, long seed) {
        Random rnd = new Random(seed);
        float[][] d = new float[k][n];
        for (float[] row : d) {
            for (int j = 0; j < n; j++) {
                row[j] = (float) rnd.nextGaussian();
            }
        }
        return d;
    }

    /** Runs {@code body} on k ranks that have joined one ring; returns each rank's ring after the body ran. */
    static List<TcpRing> onRing(int k, RingBody body) throws Exception {
        AllGather gather = new AllGather(k);
        ExecutorService pool = Executors.newFixedThreadPool(k);
        try {
            List<Future<TcpRing>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    TcpRing ring = TcpRing.join(rank, k, "127.0.0.1", gather.forRank(rank), TIMEOUT);
                    try {
                        body.run(ring);
                    } finally {
                        ring.close();
                    }
                    return ring;
                }));
            }
            List<TcpRing> rings = new ArrayList<>();
            for (Future<TcpRing> f : futures) {
                rings.add(f.get());
            }
            return rings;
        } finally {
            pool.shutdownNow();
        }
    }

    interface RingBody {
        void run(TcpRing ring) throws Exception;
    }

    @Test
    void threeRanksOverTcpSumAsTheInProcessRingBitForBitAndSendWhatTheScheduleSays() throws Exception {
        Djl.setup();
        int k = 3;
        int n = 1001;
        float[][] input = data(k, n, 3);
        float[][] viaTcp = new float[k][];
        List<TcpRing> rings = onRing(k, ring -> {
            float[] mine = input[ring.rank()].clone();
            ring.allreduce(mine, n); // one bucket
            viaTcp[ring.rank()] = mine;
        });
        try (NDManager manager = NDManager.newBaseManager()) {
            List<NDArray> arrays = new ArrayList<>();
            for (float[] row : input) {
                arrays.add(manager.create(row));
            }
            Ring.allreduce(arrays);
            RingSchedule schedule = RingSchedule.allreduce(n, k);
            for (int r = 0; r < k; r++) {
                assertArrayEquals(arrays.get(r).toFloatArray(), viaTcp[r], "rank " + r); // same sums in the same order
                assertEquals(4 * schedule.elementsSent(r), rings.get(r).bytesSent(), "rank " + r);
                assertEquals(4 * schedule.elementsReceived(r), rings.get(r).bytesReceived(), "rank " + r);
                assertEquals(0, rings.get(r).refusedConnections());
            }
        }
    }

    @Test
    void bucketsAreReducedOneAfterAnotherAndGiveTheSameSumsUpToRounding() throws Exception {
        int k = 2;
        int n = 10_007;
        float[][] input = data(k, n, 5);
        float[][] out = new float[k][];
        onRing(k, ring -> {
            float[] mine = input[ring.rank()].clone();
            ring.allreduce(mine, 1000); // 11 buckets, the last of 7 elements
            out[ring.rank()] = mine;
        });
        for (int j = 0; j < n; j++) {
            assertEquals(input[0][j] + input[1][j], out[0][j], 0f, "element " + j); // k = 2: a + b is b + a exactly
            assertEquals(out[0][j], out[1][j], 0f, "element " + j);
        }
    }

    @Test
    void theBytesCountedAfterEachAllreduceAreExactlyWhatItMovedEvenWhenThePeerHasAlreadySentMore() throws Exception {
        // Back to back, a peer that finished call i sends call i + 1's chunk while this rank still reads call i's
        // last one; a count taken on the socket below the read buffer would then include bytes read ahead.
        int k = 2;
        int n = 3;
        int calls = 2000;
        RingSchedule schedule = RingSchedule.allreduce(n, k);
        long[][] counted = new long[k][calls];
        onRing(k, ring -> {
            float[] mine = new float[n];
            for (int c = 0; c < calls; c++) {
                ring.allreduce(mine, n);
                counted[ring.rank()][c] = ring.bytesReceived();
            }
        });
        for (int r = 0; r < k; r++) {
            for (int c = 0; c < calls; c++) {
                assertEquals(4 * schedule.elementsReceived(r) * (c + 1), counted[r][c], "rank " + r + ", call " + (c + 1));
            }
        }
    }

    @Test
    void aConnectionWithTheWrongTokenIsRefusedAndTheRingStillForms() throws Exception {
        int k = 2;
        AllGather gather = new AllGather(k + 1); // the stray learns the addresses, but not the stage's token
        ExecutorService pool = Executors.newFixedThreadPool(k);
        try {
            List<Future<TcpRing>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    Function<String, String[]> two = m -> {
                        String[] all = gather.forRank(rank).apply(m);
                        return new String[] {all[0], all[1]};
                    };
                    if (rank == 1) {
                        // rank 1 joins only after the stray has knocked at rank 0
                        two = m -> {
                            String[] all = gather.forRank(1).apply(m);
                            try {
                                Thread.sleep(500);
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                            return new String[] {all[0], all[1]};
                        };
                    }
                    return TcpRing.join(rank, k, "127.0.0.1", two, TIMEOUT);
                }));
            }
            String[] all = gather.forRank(2).apply("stray");
            String[] rank0 = all[0].split(" ");
            boolean closedOnUs;
            try (Socket stray = new Socket(rank0[0], Integer.parseInt(rank0[1]))) {
                stray.setSoTimeout(10_000);
                DataOutputStream hello = new DataOutputStream(stray.getOutputStream());
                hello.writeInt(0x44324c52);
                hello.write(new byte[32]); // a wrong token
                hello.writeInt(1);
                hello.flush();
                closedOnUs = stray.getInputStream().read() == -1;
            }
            assertTrue(closedOnUs, "rank 0 closed the stray connection");
            TcpRing ring0 = futures.get(0).get();
            TcpRing ring1 = futures.get(1).get();
            assertEquals(1, ring0.refusedConnections());
            assertEquals(0, ring1.refusedConnections());
            ring0.close();
            ring1.close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPeerThatNeverConnectsFailsTheJoinAfterTheTimeoutNamingThatRank() throws IOException {
        try (var silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            // rank 1 of 2 "exists" (its port accepts connections) but never connects to rank 0
            Function<String, String[]> gather = m -> new String[] {m, "127.0.0.1 " + silent.getLocalPort() + " 00"};
            IOException ex = assertThrows(IOException.class,
                    () -> TcpRing.join(0, 2, "127.0.0.1", gather, Duration.ofMillis(300)));
            assertTrue(ex.getMessage().contains("waited 300 ms for rank 1 to connect"), ex.getMessage());
        }
    }

    @Test
    void theWildcardAddressIsRefused() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> TcpRing.join(0, 2, "0.0.0.0", m -> new String[] {m, m}, TIMEOUT));
        assertTrue(ex.getMessage().contains("not the wildcard"), ex.getMessage());
    }
}
