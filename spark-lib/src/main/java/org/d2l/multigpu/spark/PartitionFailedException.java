package org.d2l.multigpu.spark;

/** A partition's training task failed; the message names the partition and the round. */
public final class PartitionFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The failure of {@code partition} in {@code round}, because of {@code reason}. */
    public PartitionFailedException(int partition, int round, String reason, Throwable cause) {
        super(message(partition, round, reason), cause);
    }

    /** The text of the failure: "Partition p failed in round r: reason". */
    static String message(int partition, int round, String reason) {
        return "Partition " + partition + " failed in round " + round + ": " + reason;
    }
}
