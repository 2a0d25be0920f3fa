/**
 * One training step's core, the same for every trainer (in process and on Spark): a replica's forward pass with
 * its loss weighted by the rule, its backward pass, an optimizer update of one parameter, and the time each phase
 * of the step took on each replica.
 */
package org.d2l.multigpu.step;
