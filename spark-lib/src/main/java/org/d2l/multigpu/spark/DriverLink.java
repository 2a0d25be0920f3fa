package org.d2l.multigpu.spark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The lines between the driver and the ranks of a running fit stage: every rank reports each epoch it
 * finishes (its figures; rank 0 also the parameters and optimizer state, which every rank holds alike) as it
 * goes, and the driver can tell the ranks to stop after their current step (early stopping, an interrupt):
 * rank 0 hears it and tells the others over the ring. A barrier stage returns its results only when it
 * ends, so a stage that runs a whole fit needs these to hand the driver each epoch while the next one
 * trains. A rank connects to the driver's address and must present the stage's random token.
 */
public final class DriverLink {

    private static final int MAGIC = 0x44324c44; // "D2LD"
    private static final int STOP = 1;

    private DriverLink() {}

    /** Where rank 0 finds the driver, and the token it presents: what the tasks of a stage are given. */
    public record Address(String host, int port, String token, long timeoutMillis) implements Serializable {}


    /** The driver's end: listens for the ranks and queues what they report. */
    public static final class Server implements AutoCloseable {

        private final ServerSocket server;
        private final Address address;
        private final BlockingQueue<Object> reports = new LinkedBlockingQueue<>();
        private final java.util.List<Socket> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.List<Thread> readers = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile DataOutputStream toRank0;
        private volatile boolean stopSent;
        private final Thread reader;

        /** Listens on {@code host} (the driver's address) for the ranks of one stage; a hello must come within {@code timeout}. */
        public Server(String host, Duration timeout) throws IOException {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getByName(host), 0), 64);
            byte[] t = new byte[16];
            new SecureRandom().nextBytes(t);
            address = new Address(host, server.getLocalPort(), HexFormat.of().formatHex(t), timeout.toMillis());
            reader = new Thread(this::serve, "driver-link-" + address.port());
            reader.setDaemon(true);
            reader.start();
        }

        /** The address and token to give the stage's tasks. */
        public Address address() {
            return address;
        }

        /** The reports: every rank's {@link RankResult} of every finished epoch, or an exception a line ended with. */
        public BlockingQueue<Object> reports() {
            return reports;
        }

        /**
         * Waits up to {@code millis} for every rank's line to end and its reports to be queued: a task closes
         * its line before it returns, so after the stage's job has ended only queuing may be left.
         */
        public void awaitLinesClosed(long millis) throws InterruptedException {
            long deadline = System.currentTimeMillis() + millis;
            for (Thread t : readers) {
                t.join(Math.max(1, deadline - System.currentTimeMillis()));
            }
        }

        /** Tells the ranks to stop after their current step (once; later calls do nothing). */
        public synchronized void stop() {
            if (stopSent) {
                return;
            }
            stopSent = true;
            DataOutputStream out = toRank0;
            if (out != null) {
                try {
                    out.writeInt(STOP);
                    out.flush();
                } catch (IOException ex) {
                    // rank 0 is gone already: the stage is ending anyway
                }
            }
        }

        private void serve() {
            try {
                while (!server.isClosed()) {
                    Socket s = server.accept();
                    Thread t = new Thread(() -> read(s), "driver-link-" + address.port() + "-" + s.getPort());
                    t.setDaemon(true);
                    readers.add(t);
                    t.start();
                }
            } catch (IOException ex) {
                // closed: the stage is over
            }
        }

        /** Reads one rank's line: its hello, then its reports until it closes. */
        private void read(Socket s) {
            lines.add(s);
            try {
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, address.timeoutMillis()));
                DataInputStream hello = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                if (hello.readInt() != MAGIC || !hello.readUTF().equals(address.token())) {
                    s.close(); // not a rank of this stage
                    return;
                }
                int rank = hello.readInt();
                s.setSoTimeout(0); // an epoch may take long: the stage's own end closes the line
                if (rank == 0) {
                    synchronized (this) {
                        toRank0 = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
                        if (stopSent) {
                            toRank0.writeInt(STOP);
                            toRank0.flush();
                        }
                    }
                }
                try (ObjectInputStream in = new ObjectInputStream(hello)) {
                    while (true) {
                        reports.add(in.readObject());
                    }
                }
            } catch (java.io.EOFException ex) {
                // the rank closed its line: its task is over
            } catch (IOException | ClassNotFoundException ex) {
                if (!server.isClosed()) {
                    reports.add(ex);
                }
            }
        }

        @Override
        public void close() {
            try {
                server.close();
                for (Socket s : lines) {
                    s.close();
                }
            } catch (IOException ex) {
                // closing: nothing left to do
            }
        }
    }

    /** A rank's end: connects to the driver, sends reports, and (rank 0) sees a stop as soon as it arrives. */
    public static final class Client implements AutoCloseable {

        private final Socket socket;
        private final ObjectOutputStream out;
        private final DataInputStream in;
        private boolean stopped;

        /** Connects to {@code address} as rank {@code rank} and presents the stage's token. */
        public Client(Address address, int rank) throws IOException {
            socket = new Socket();
            socket.connect(new InetSocketAddress(address.host(), address.port()), (int) address.timeoutMillis());
            socket.setTcpNoDelay(true);
            DataOutputStream hello = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            hello.writeInt(MAGIC);
            hello.writeUTF(address.token());
            hello.writeInt(rank);
            hello.flush();
            out = new ObjectOutputStream(hello);
            out.flush();
            in = new DataInputStream(socket.getInputStream());
        }

        /** Sends {@code report} to the driver. */
        public void send(Serializable report) throws IOException {
            out.writeObject(report);
            out.reset(); // no back-references to earlier reports: each is read on its own
            out.flush();
        }

        /** Whether the driver has asked the ranks to stop (never blocks). */
        public boolean stopRequested() throws IOException {
            if (!stopped && in.available() >= 4) {
                stopped = in.readInt() == STOP;
            }
            return stopped;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ex) {
                // the stage is ending
            }
        }
    }
}
