package org.d2l.multigpu.spark;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import java.io.Serializable;

/**
 * Builds the network on whichever machine runs it (driver or executor): Spark ships this small
 * serialisable recipe, not the block; see {@link Models} for the lessons' networks.
 */
public interface ModelFactory extends Serializable {

    /** A new, uninitialised block. */
    Block newBlock();

    /** The input shape (with a batch axis of 1) with which to initialise the block. */
    Shape inputShape();

    /**
     * The name of the network this factory builds: executors keep built networks under it between
     * rounds (a factory arrives as a new object in every task), so two factories with the same name
     * must build the same network. {@link Models} uses its constants' names.
     */
    String name();
}
