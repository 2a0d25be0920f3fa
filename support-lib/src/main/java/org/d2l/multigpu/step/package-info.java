/**
 * One training step's core, the same for every trainer (in process and on Spark): a replica's forward pass with
 * its loss weighted by the rule, its backward pass, an optimizer update of one parameter, the time each phase
 * of the step took on each replica, and what a failed step does: its parameters put back ({@link
 * org.d2l.multigpu.step.StepRollback}) and a non-finite loss explained ({@link org.d2l.multigpu.step.NonFiniteLoss}).
 */
package org.d2l.multigpu.step;
