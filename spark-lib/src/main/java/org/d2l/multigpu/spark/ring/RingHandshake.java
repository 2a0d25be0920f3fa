package org.d2l.multigpu.spark.ring;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * How a rank of a {@link TcpRing} finds its two neighbours: it listens on its own address only, posts that address
 * and a nonce through one all-gather, derives the stage's token from every rank's message, connects to rank + 1 and
 * says hello (magic, token, rank), and accepts only rank - 1 saying hello with that token.
 */
final class RingHandshake {

    private static final int MAGIC = 0x44324c52; // "D2LR"
    private static final int TOKEN_BYTES = 32;
    private static final long HELLO_MILLIS = 5_000;
    /** The bytes of one hello: magic, token, rank. */
    static final long HELLO_BYTES = 4 + TOKEN_BYTES + 4;

    /** The connection to the next rank, the one from the previous rank, and the connections refused meanwhile. */
    record Peers(Socket toNext, Socket fromPrevious, int refused) {}

    private RingHandshake() {}

    /**
     * Connects {@code rank} of {@code k} to its neighbours, listening on {@code host}, meeting the others through
     * {@code allGather}, each connect and accept within {@code millis}.
     */
    static Peers connect(int rank, int k, String host, Function<String, String[]> allGather, long millis)
            throws IOException {
        if (k < 2) {
            throw new IllegalArgumentException("A ring needs at least two ranks, got " + k + ".");
        }
        InetAddress address = InetAddress.getByName(host);
        if (address.isAnyLocalAddress()) {
            throw new IllegalArgumentException("The ring listens on this executor's own address, not the wildcard "
                    + host + ": give the executor's host name.");
        }
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(address, 0), k);
            byte[] nonce = new byte[16];
            new SecureRandom().nextBytes(nonce);
            String mine = host + " " + server.getLocalPort() + " " + HexFormat.of().formatHex(nonce);
            String[] all = allGather.apply(mine);
            if (all.length != k) {
                throw new IllegalStateException("The all-gather returned " + all.length + " addresses for a ring of " + k
                        + " ranks: run one task per partition in a barrier stage.");
            }
            byte[] token = token(all);
            String[] next = all[(rank + 1) % k].split(" ");
            Socket toNext = new Socket();
            try {
                toNext.connect(new InetSocketAddress(next[0], Integer.parseInt(next[1])), (int) millis);
                toNext.setTcpNoDelay(true);
                toNext.setSoTimeout((int) millis);
                DataOutputStream hello = new DataOutputStream(toNext.getOutputStream());
                hello.writeInt(MAGIC);
                hello.write(token);
                hello.writeInt(rank);
                hello.flush();
            } catch (IOException ex) {
                toNext.close();
                throw new IOException("Rank " + rank + " could not connect to rank " + (rank + 1) % k + " at "
                        + next[0] + ":" + next[1] + " within " + millis + " ms: " + ex.getMessage(), ex);
            }
            int previous = (rank + k - 1) % k;
            int refused = 0;
            long deadline = System.currentTimeMillis() + millis;
            while (true) {
                long left = deadline - System.currentTimeMillis();
                Socket peer;
                try {
                    server.setSoTimeout((int) Math.max(1, left));
                    peer = server.accept();
                } catch (SocketTimeoutException ex) {
                    toNext.close();
                    throw new IOException("Rank " + rank + " waited " + millis + " ms for rank " + previous
                            + " to connect with the stage's token and it did not (" + refused + " connection(s) "
                            + "refused): the peer is stuck or gone; the barrier stage fails.", ex);
                }
                if (accepts(peer, token, previous, millis)) {
                    peer.setSoTimeout((int) millis);
                    return new Peers(toNext, peer, refused);
                }
                refused++;
            }
        }
    }

    /** Whether {@code peer} says hello with the magic, the token and rank {@code previous}; else it is closed. */
    private static boolean accepts(Socket peer, byte[] token, int previous, long millis) {
        try {
            peer.setSoTimeout((int) Math.min(millis, HELLO_MILLIS)); // a silent stray must not hold up the peer
            peer.setTcpNoDelay(true);
            DataInputStream hello = new DataInputStream(peer.getInputStream());
            byte[] theirs = new byte[TOKEN_BYTES];
            boolean ok = hello.readInt() == MAGIC;
            if (ok) {
                hello.readFully(theirs);
                ok = MessageDigest.isEqual(token, theirs) && hello.readInt() == previous;
            }
            if (!ok) {
                peer.close();
            }
            return ok;
        } catch (IOException ex) {
            try {
                peer.close();
            } catch (IOException ignored) {
                // closing a refused connection
            }
            return false;
        }
    }

    /** SHA-256 of every rank's message: the token only the stage's tasks know. */
    static byte[] token(String[] all) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String s : all) {
                sha.update(s.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return sha.digest();
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("This JVM has no SHA-256.", ex);
        }
    }
}
